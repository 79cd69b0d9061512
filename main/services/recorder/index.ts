export * from './data-dir'
export * from './migrations'
export * from './recorder'
