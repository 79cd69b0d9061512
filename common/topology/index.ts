export * from './schema'
export * from './model'
export * from './validate'
