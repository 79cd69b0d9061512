/** A value RocketMQ's `MixAll.properties2Object` can parse. */
export type PropValue = string | number | boolean
