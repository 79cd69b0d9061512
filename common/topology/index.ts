export * from './schema'
export * from './model'
export * from './validate'
export * from './actions'
