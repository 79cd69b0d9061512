import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { topologySchema } from '../../../common/topology/schema'
import type { QueueData } from '../remoting'
import { decideTopicRoute, type NameServerRoute } from './route-agreement'
import { queue } from './testing-fakes'
import { checkTopic } from './topic-check'

const ROOT = resolve(import.meta.dirname, '../../..')
const topology = topologySchema.parse(
  JSON.parse(readFileSync(join(ROOT, 'resources/topologies/two-rooms.json'), 'utf8'))
)
const WAITS = { partialMs: 20_000, agreementMs: 35_000 }

/** ns-1 in room1, ns-2 in room2; each routes `payments` to the given queues (null: no such topic). */
function routes(ns1: QueueData[] | null | Error, ns2: QueueData[] | null | Error) {
  return [ns1, ns2].map((q, i): NameServerRoute => ({
    nameServer: `ns-${i + 1}`,
    room: `room${i + 1}`,
    ...(q instanceof Error
      ? { check: null, error: q.message }
      : { check: checkTopic({ topic: 'payments', queues: q, topology }) })
  }))
}
const both = [queue('broker-a'), queue('broker-b')]

describe('decideTopicRoute', () => {
  it('is ready when every name server routes every room', () => {
    expect(decideTopicRoute(routes(both, both), 0, WAITS)).toEqual({ kind: 'ready' })
  })

  it('is ready when one name server routes every room and the other does not answer', () => {
    expect(decideTopicRoute(routes(both, new Error('timeout')), 0, WAITS)).toEqual({
      kind: 'ready'
    })
  })

  it('waits for a name server that lacks a restarted broker, naming it and what it lacks', () => {
    const d = decideTopicRoute(routes([queue('broker-b')], both), 34_999, WAITS)
    expect(d).toEqual({
      kind: 'wait',
      reason: 'waiting for name servers to agree: ns-1 (room1) lacks broker-a'
    })
  })

  it('runs anyway after one registration period, noting which name server still lags', () => {
    const d = decideTopicRoute(routes([queue('broker-b')], both), 35_000, WAITS)
    expect(d).toEqual({
      kind: 'go',
      note:
        'name servers still disagreed on payments after 35 s: ns-1 (room1) lacks broker-a; ' +
        'clients that ask them do not see those brokers until the brokers register again'
    })
  })

  it('counts a name server that does not know the topic at all as lagging when another routes it', () => {
    const d = decideTopicRoute(routes(both, null), 0, WAITS)
    expect(d).toMatchObject({
      kind: 'wait',
      reason: expect.stringContaining('ns-2 (room2) lacks broker-a, broker-b')
    })
  })

  it('names a lagging name server by its route when it lacks no broker (read-only queues)', () => {
    const d = decideTopicRoute(routes([queue('broker-a', 4, 4), queue('broker-b')], both), 0, WAITS)
    expect(d.kind).toBe('wait')
    expect(d.kind === 'wait' && d.reason).toContain(
      'ns-1 (room1) topic "payments" has no writable queues in room1'
    )
  })

  it('refuses a missing topic at once', () => {
    const d = decideTopicRoute(routes(null, null), 0, WAITS)
    expect(d).toMatchObject({ kind: 'refuse', check: { ok: false, missing: true } })
  })

  it('waits for a topic no name server routes in every room, then refuses it', () => {
    const partial = [queue('broker-b')]
    expect(decideTopicRoute(routes(partial, partial), 19_999, WAITS)).toMatchObject({
      kind: 'wait',
      reason: expect.stringContaining('has no writable queues in room1')
    })
    expect(decideTopicRoute(routes(partial, partial), 20_000, WAITS)).toMatchObject({
      kind: 'refuse',
      check: { ok: false, missing: false, roomsWithoutQueues: ['room1'] }
    })
  })

  it('explains with the partial route rather than the missing one', () => {
    const d = decideTopicRoute(routes(null, [queue('broker-b')]), 0, WAITS)
    expect(d).toMatchObject({ kind: 'wait', reason: expect.stringContaining('no writable queues') })
  })

  it('refuses when no name server answers, with each one’s error', () => {
    expect(decideTopicRoute(routes(new Error('refused'), new Error('timeout')), 0, WAITS)).toEqual({
      kind: 'refuse',
      check: null,
      reason: 'no name server answered (ns-1: refused; ns-2: timeout)'
    })
    expect(decideTopicRoute([], 0, WAITS)).toMatchObject({
      reason: 'no name server answered (none is serving)'
    })
  })
})
