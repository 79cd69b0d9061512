export * from './replay-state'
export * from './replay-view'
