export * from './load-scenario'
export * from './scenario-catalog'
export * from './scorecard'
