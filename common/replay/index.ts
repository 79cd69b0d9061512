export * from './replay-state'
export * from './replay-view'
export * from './divergence'
