import type { z } from 'zod'
import { appEvents, appRequests } from './app'
import { attachEvents, attachRequests } from './attach'
import type { EventSpec, RequestSpec } from './define'
import { runsEvents, runsRequests } from './runs'
import { sandboxEvents, sandboxRequests } from './sandbox'
import { topologyEvents, topologyRequests } from './topology'

export * from './app'
export * from './attach'
export * from './node-actions'
export * from './runs'
export * from './sandbox'
export * from './topology'
export type { EventSpec, RequestSpec } from './define'

/** Every renderer → engine request, listed once; both transports and the preload read this table. */
export const requests = {
  ...appRequests,
  ...topologyRequests,
  ...sandboxRequests,
  ...runsRequests,
  ...attachRequests
} satisfies Record<string, RequestSpec>

/** Every engine → renderer event, listed once. */
export const events = {
  ...appEvents,
  ...topologyEvents,
  ...sandboxEvents,
  ...runsEvents,
  ...attachEvents
} satisfies Record<string, EventSpec>

export type RequestChannel = keyof typeof requests
export type EventChannel = keyof typeof events

/** What a caller passes (defaults not yet applied). */
export type RequestInput<C extends RequestChannel> = z.input<(typeof requests)[C]['input']>
/** What a handler receives after validation. */
export type RequestParsed<C extends RequestChannel> = z.output<(typeof requests)[C]['input']>
export type RequestOutput<C extends RequestChannel> = z.output<(typeof requests)[C]['output']>
export type EventPayload<C extends EventChannel> = z.output<(typeof events)[C]['payload']>

/** The engine's handler table: a mapped type, so a channel without a handler does not compile. */
export type Handlers = {
  [C in RequestChannel]: (input: RequestParsed<C>) => Promise<RequestOutput<C>>
}

export const REQUEST_CHANNELS = Object.keys(requests) as RequestChannel[]
export const EVENT_CHANNELS = Object.keys(events) as EventChannel[]

export function isRequestChannel(value: unknown): value is RequestChannel {
  return typeof value === 'string' && Object.hasOwn(requests, value)
}

export function isEventChannel(value: unknown): value is EventChannel {
  return typeof value === 'string' && Object.hasOwn(events, value)
}
