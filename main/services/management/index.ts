export * from './availability'
export * from './config'
export * from './management-node'
export * from './run'
