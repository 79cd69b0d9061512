export * from './types'
export * from './ledger-writer'
export * from './ledger-reader'
