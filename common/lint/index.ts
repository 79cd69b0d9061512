export * from './rules'
export * from './lint'
