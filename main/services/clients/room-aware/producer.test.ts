import { afterEach, describe, expect, it } from 'vitest'
import { summarizeLatencies } from './healthy-latency'
import { hedgeDelayMs, HEDGE_DEFAULTS } from './hedge'
import type { ProducerOptions } from './producer'
import { DrProducer } from './producer'
import { RemotingTimeoutError } from '../../remoting/errors'
import { FakeCluster, FakeManagement, RecordingLedger, until } from './test-fakes'

const mgmt = [
  { id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' },
  { id: 'mgmt-2', room: 'room2', url: 'http://127.0.0.1:2' }
]

function world(extra: Partial<ProducerOptions> = {}) {
  const cluster = new FakeCluster()
  cluster.nameServers.set('ns1:9876', 'up')
  cluster.nameServers.set('ns2:9876', 'up')
  cluster.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
  cluster.brokers.set('b:10911', { name: 'broker-b', room: 'room2', health: 'up' })
  const management = new FakeManagement([
    { id: 'ns-1', room: 'room1', address: 'ns1:9876', available: true },
    { id: 'ns-2', room: 'room2', address: 'ns2:9876', available: true }
  ])
  const ledger = new RecordingLedger()
  const producer = new DrProducer(
    {
      id: 'producer-1',
      room: 'room1',
      topic: 'orders',
      group: 'pg',
      managementNodes: mgmt,
      probeIntervalMs: 10,
      routeRefreshMs: 50,
      managementRefreshMs: 50,
      sendTimeoutMs: 500,
      ...extra
    },
    { remoting: () => cluster.remoting(), management, ledger }
  )
  return { cluster, management, ledger, producer }
}

const live: DrProducer[] = []
afterEach(async () => {
  for (const p of live.splice(0)) await p.stop()
})

describe('DrProducer', () => {
  it('sends through its own room and round-robins the queues (scenario 1)', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    for (let i = 0; i < 5; i++) expect((await producer.send({ body: 'x' })).ok).toBe(true)
    expect(cluster.sent.map((s) => `${s.broker}#${s.queueId}`)).toEqual([
      'broker-a#0',
      'broker-a#1',
      'broker-a#2',
      'broker-a#3',
      'broker-a#0'
    ])
    expect(ledger.sends.every((s) => s.namesrvRoom === 'room1' && s.brokerRoom === 'room1')).toBe(
      true
    )
    expect(producer.choice()).toMatchObject({
      namesrvRoom: 'room1',
      brokerRoom: 'room1',
      brokerName: 'broker-a'
    })
  })

  it('asks the broker timer to deliver a delayed message at its due time, and records it', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    // Schedule slots are fractional milliseconds; the broker takes whole ones only.
    expect((await producer.send({ body: 'x', scheduledAt: 1000, deliverAt: 6000.48 })).ok).toBe(
      true
    )
    expect((await producer.send({ body: 'y' })).ok).toBe(true)
    expect(cluster.sent.map((s) => s.properties)).toEqual([{ TIMER_DELIVER_MS: '6000' }, undefined])
    expect(ledger.sends.map((s) => s.dueAt)).toEqual([6000.48, null])
  })

  it('fails over to another room within the same send, isolates, and returns after a probe', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    await producer.send({ body: 'x' })
    cluster.brokers.get('a:10911')!.health = 'hung'
    const r = await producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-b', attempts: 2 })
    expect(ledger.kinds('broker-failover')[0]).toMatchObject({
      from: 'broker-a',
      fromRoom: 'room1',
      to: 'broker-b',
      toRoom: 'room2',
      reason: 'timeout'
    })
    expect(ledger.kinds('broker-isolated')).toHaveLength(1)
    // Isolated: the next send goes straight to room 2.
    expect(await producer.send({ body: 'x' })).toMatchObject({
      brokerName: 'broker-b',
      attempts: 1
    })
    cluster.brokers.get('a:10911')!.health = 'up'
    await until(
      () => ledger.kinds('broker-recovered').length === 1,
      'the probe to lift the isolation'
    )
    expect(await producer.send({ body: 'x' })).toMatchObject({ brokerName: 'broker-a' })
  })

  it('never isolates the last healthy broker on a timeout: a slow answer is not a dead broker', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    // Room 1's broker refused (proof): isolated, room 2's takes the send.
    cluster.brokers.get('a:10911')!.health = 'down'
    expect(await producer.send({ body: 'x' })).toMatchObject({ ok: true, brokerName: 'broker-b' })
    // Then room 2's stops answering in time: the send fails, but broker-b stays in.
    cluster.brokers.get('b:10911')!.health = 'hung'
    expect((await producer.send({ body: 'x' })).ok).toBe(false)
    expect(ledger.kinds('broker-isolated').map((e) => [e.brokerName, e.reason])).toEqual([
      ['broker-a', 'refused']
    ])
    // It answers again: the next send goes there at once, not to the dead one.
    cluster.brokers.get('b:10911')!.health = 'up'
    expect(await producer.send({ body: 'x' })).toMatchObject({
      ok: true,
      brokerName: 'broker-b',
      attempts: 1
    })
  })

  it('waits longer for a broker whose healthy answers got slower (a loaded host) instead of failing over, up to its ceiling', async () => {
    const { cluster, ledger, producer } = world({ requestTimeoutMs: 100, maxRequestTimeoutMs: 300 })
    live.push(producer)
    await producer.start()
    // A loaded host: room 1's broker answers in 90 ms, under the 100 ms floor.
    cluster.slow.set('a:10911', 90)
    const warm = await Promise.all(
      Array.from({ length: 30 }, (_, i) => producer.send({ key: `w${i}`, body: 'x' }))
    )
    expect(warm.every((r) => r.ok && r.brokerName === 'broker-a')).toBe(true)
    // Recomputed once a second from the last 30 s: 1.5 × p99 of ~90 ms.
    await new Promise((r) => setTimeout(r, 1100))
    cluster.slow.set('a:10911', 120)
    expect(await producer.send({ key: 'slow', body: 'x' })).toMatchObject({
      ok: true,
      brokerName: 'broker-a',
      attempts: 1
    })
    const [change] = ledger.kinds('request-timeout')
    expect(change).toMatchObject({ previousMs: 100, samples: 30 })
    expect(Number(change!.timeoutMs)).toBeGreaterThanOrEqual(135)
    expect(Number(change!.timeoutMs)).toBeLessThanOrEqual(300)
    expect(ledger.kinds('send-attempt-failed')).toEqual([])
    // A hung broker still times out, at the ceiling at worst, and the send goes to room 2.
    cluster.slow.set('a:10911', 10_000)
    const hung = await producer.send({ key: 'hung', body: 'x' })
    expect(hung).toMatchObject({ ok: true, brokerName: 'broker-b', attempts: 2 })
    const [failed] = ledger.kinds('send-attempt-failed')
    expect(failed).toMatchObject({ key: 'hung', reason: 'timeout' })
    expect(Number(failed!.endMs) - Number(failed!.startMs)).toBeLessThan(400)
  })

  it('with maxRequestTimeoutMs equal to requestTimeoutMs the timeout is fixed, as before', async () => {
    const { cluster, ledger, producer } = world({ requestTimeoutMs: 100, maxRequestTimeoutMs: 100 })
    live.push(producer)
    await producer.start()
    cluster.slow.set('a:10911', 90)
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => producer.send({ key: `w${i}`, body: 'x' }))
    )
    await new Promise((r) => setTimeout(r, 1100))
    cluster.slow.set('a:10911', 120)
    expect(await producer.send({ key: 'slow', body: 'x' })).toMatchObject({
      brokerName: 'broker-b'
    })
    expect(ledger.kinds('request-timeout')).toEqual([])
    expect(ledger.kinds('send-attempt-failed')).toMatchObject([{ key: 'slow', reason: 'timeout' }])
  })

  it('follows the route when the name server drops its room (scenario 2), logging the failover', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    await producer.send({ body: 'x' })
    cluster.brokers.get('a:10911')!.health = 'down'
    const r = await producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerRoom: 'room2' })
    expect(ledger.kinds('broker-failover')).toHaveLength(1)
  })

  it('moves to another room name server when its own fails (scenario 3)', async () => {
    const { cluster, management, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    cluster.nameServers.set('ns1:9876', 'down')
    management.list = management.list.map((n) => (n.id === 'ns-1' ? { ...n, available: false } : n))
    await until(() => ledger.kinds('namesrv-failover').length > 0, 'a name-server failover')
    expect(ledger.kinds('namesrv-failover')[0]).toMatchObject({
      from: 'ns-1',
      fromRoom: 'room1',
      to: 'ns-2',
      toRoom: 'room2'
    })
    expect(producer.choice().namesrvRoom).toBe('room2')
    // Back to the own room once it is available again.
    cluster.nameServers.set('ns1:9876', 'up')
    management.list = management.list.map((n) => ({ ...n, available: true }))
    await until(() => producer.choice().namesrvRoom === 'room1', 'return to the own room')
  })

  it('keeps its list and asks another room when its management node is down', async () => {
    const { management, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    management.down.add('mgmt-1')
    await until(() => ledger.kinds('management-fallback').length > 0, 'a management fallback')
    expect(ledger.kinds('management-fallback')[0]).toMatchObject({
      fromRoom: 'room1',
      toRoom: 'room2'
    })
    expect(producer.directory.current()).toHaveLength(2)
    expect((await producer.send({ body: 'x' })).brokerRoom).toBe('room1')
  })

  it('gives up at the deadline when every room is down, and records the failure', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    for (const b of cluster.brokers.values()) b.health = 'hung'
    const r = await producer.send({ body: 'x' })
    expect(r.ok).toBe(false)
    expect(r.attempts).toBeGreaterThanOrEqual(2)
    expect(ledger.sends.at(-1)).toMatchObject({ status: 'failed' })
    expect(ledger.kinds('send-failed')).toHaveLength(1)
  })

  it('does not retry a message the broker rejects as illegal', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    cluster.brokers.get('a:10911')!.health = { code: 13 }
    const r = await producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: false, attempts: 1 })
    expect(ledger.kinds('broker-isolated')).toHaveLength(0)
  })

  it('warm-up sends leave no ledger rows', async () => {
    const { ledger, producer } = world()
    live.push(producer)
    await producer.start()
    await producer.send({ body: 'x', record: false })
    expect(ledger.sends).toHaveLength(0)
    expect(producer.stats().sent).toBe(0)
  })
})

describe('a retry on the same broker', () => {
  it('is a slow send, not a failover, when that broker is the only one left', async () => {
    const cluster = new FakeCluster()
    cluster.nameServers.set('ns1:9876', 'up')
    cluster.brokers.set('b:10911', { name: 'broker-b', room: 'room2', health: 'up' })
    const ledger = new RecordingLedger()
    let first = true
    const producer = new DrProducer(
      {
        id: 'producer-1',
        room: 'room1',
        topic: 'orders',
        group: 'pg',
        managementNodes: [],
        initialNameServers: [{ id: 'ns-1', room: 'room1', address: 'ns1:9876' }],
        routeRefreshMs: 50,
        sendTimeoutMs: 2000
      },
      {
        remoting: () => {
          const port = cluster.remoting()
          const send = port.sendMessageV2.bind(port)
          port.sendMessageV2 = (async (...args: Parameters<typeof send>) => {
            // The lossy link drops the first answer: the request times out once.
            if (first) {
              first = false
              throw new RemotingTimeoutError('b:10911', 310, 400)
            }
            return send(...args)
          }) as typeof send
          return port
        },
        management: new FakeManagement([]),
        ledger
      }
    )
    live.push(producer)
    await producer.start()
    const r = await producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-b', attempts: 2 })
    expect(ledger.events.filter((e) => e.kind === 'broker-failover')).toEqual([])
  })
})

describe('DrProducer hedged sends', () => {
  const hedge = { minDelayMs: 5, maxDelayMs: 50 }
  // Five answers are enough to know, and every send reads the window afresh (no 1 s cache).
  const latencyWindow = { minSamples: 5, recomputeMs: 0 }
  async function warmed(extra: Partial<ProducerOptions>) {
    const w = world({ requestTimeoutMs: 200, sendTimeoutMs: 1000, latencyWindow, ...extra })
    live.push(w.producer)
    await w.producer.start()
    for (let i = 0; i < 10; i++) await w.producer.send({ body: 'x', record: false })
    w.cluster.sent = []
    return w
  }

  it('races a hung own-room broker with a copy through another room after the adaptive delay', async () => {
    const { cluster, ledger, producer } = await warmed({ hedge })
    cluster.slow.set('a:10911', 10_000)
    const r = await producer.send({ key: 'k1', body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-b', brokerRoom: 'room2', attempts: 2 })
    // Answered by the hedge before the first attempt's request timeout came.
    expect(ledger.kinds('send-attempt-failed')).toEqual([])
    expect(ledger.kinds('send-hedged')).toEqual([
      expect.objectContaining({
        key: 'k1',
        from: 'broker-a',
        to: 'broker-b',
        toRoom: 'room2',
        won: true
      })
    ])
    expect(ledger.sends).toEqual([
      expect.objectContaining({ key: 'k1', brokerName: 'broker-b', attempts: 2 })
    ])
    // The first attempt runs on: its timeout is logged and isolates broker-a like any failure.
    await until(() => ledger.kinds('broker-isolated').length === 1, 'the late timeout')
    expect(ledger.kinds('send-attempt-failed')).toEqual([
      expect.objectContaining({ key: 'k1', brokerName: 'broker-a', reason: 'timeout' })
    ])
  })

  it('a slow but healthy broker: the faster copy wins and both are stored (the duplicate it costs)', async () => {
    const { cluster, ledger, producer } = await warmed({ hedge })
    cluster.slow.set('a:10911', 80)
    const r = await producer.send({ key: 'k2', body: 'x' })
    expect(r.brokerName).toBe('broker-b')
    await until(() => cluster.sent.length === 2, 'the first copy to land too')
    expect(cluster.sent.map((x) => `${x.broker}:${x.key}`).sort()).toEqual([
      'broker-a:k2',
      'broker-b:k2'
    ])
    expect(ledger.kinds('broker-isolated')).toEqual([])
  })

  it('sends that answer within the delay are never hedged', async () => {
    const { cluster, ledger, producer } = await warmed({ hedge })
    for (let i = 0; i < 20; i++)
      expect((await producer.send({ body: 'x' })).brokerName).toBe('broker-a')
    expect(ledger.kinds('send-hedged')).toEqual([])
    expect(cluster.sent.every((x) => x.broker === 'broker-a')).toBe(true)
  })

  it('without enough healthy samples, or beyond its budget, it waits for the request timeout', async () => {
    const cold = world({ requestTimeoutMs: 100, sendTimeoutMs: 1000, hedge, latencyWindow })
    live.push(cold.producer)
    await cold.producer.start()
    cold.cluster.slow.set('a:10911', 10_000)
    const r = await cold.producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-b', attempts: 2 })
    expect(cold.ledger.kinds('send-attempt-failed')).toMatchObject([{ reason: 'timeout' }])
    expect(cold.ledger.kinds('send-hedged')).toEqual([])

    const { cluster, ledger, producer } = await warmed({ hedge: { ...hedge, burst: 2, budget: 0 } })
    cluster.slow.set('a:10911', 10_000)
    await Promise.all([0, 1, 2].map((i) => producer.send({ key: `b${i}`, body: 'x' })))
    expect(ledger.kinds('send-hedged')).toHaveLength(2)
  })

  it('is off unless asked for', async () => {
    const { cluster, ledger, producer } = await warmed({})
    cluster.slow.set('a:10911', 10_000)
    const r = await producer.send({ body: 'x' })
    expect(r).toMatchObject({ ok: true, brokerName: 'broker-b', attempts: 2 })
    expect(ledger.kinds('send-attempt-failed')).toMatchObject([{ reason: 'timeout' }])
    expect(ledger.kinds('send-hedged')).toEqual([])
  })

  it('derives the delay from recent healthy latency (the p99 the request timeout follows too), within its bounds', () => {
    const o = { ...HEDGE_DEFAULTS, maxDelayMs: 200 }
    const samples = Array.from({ length: 100 }, (_, i) => i + 1)
    expect(hedgeDelayMs(summarizeLatencies(samples, 20).p99Ms, o)).toBeCloseTo(1.5 * 99.01, 5)
    expect(hedgeDelayMs(summarizeLatencies(samples.slice(0, 19), 20).p99Ms, o)).toBeNull()
    expect(hedgeDelayMs(1, o)).toBe(10)
    expect(hedgeDelayMs(1000, o)).toBe(200)
  })
})

describe('DrProducer, ordered sends', () => {
  const order = (key: string, seq: number) => ({ body: 'x', order: { key, seq } })
  const queueOf = (s: { broker: string; queueId: number }) => `${s.broker}#${s.queueId}`

  it('sends each key to one queue of its own room, and records key and sequence', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    for (let seq = 0; seq < 3; seq++)
      for (let k = 0; k < 8; k++) expect((await producer.send(order(`p:k${k}`, seq))).ok).toBe(true)
    const byKey = new Map<string, Set<string>>()
    cluster.sent.forEach((s, i) => {
      const key = ledger.sends[i]!.orderKey!
      byKey.set(key, (byKey.get(key) ?? new Set()).add(queueOf(s)))
    })
    expect([...byKey.values()].every((qs) => qs.size === 1)).toBe(true)
    const used = new Set(cluster.sent.map(queueOf))
    expect(used.size).toBeGreaterThan(1)
    expect([...used].every((q) => q.startsWith('broker-a#'))).toBe(true)
    expect(ledger.sends.slice(0, 2).map((s) => [s.orderKey, s.orderSeq])).toEqual([
      ['p:k0', 0],
      ['p:k1', 0]
    ])
  })

  it('sends one message of a key at a time, in call order, however the calls overlap', async () => {
    const { cluster, producer } = world()
    live.push(producer)
    await producer.start()
    cluster.slow.set('a:10911', 20)
    const outcomes = await Promise.all([0, 1, 2, 3].map((seq) => producer.send(order('p:k1', seq))))
    expect(outcomes.every((o) => o.ok)).toBe(true)
    // The fake stores at the end of each send: overlapping sends would be stored in any order.
    expect(outcomes.map((o) => o.queueOffset)).toEqual([1, 2, 3, 4])
  })

  it('wait: holds a key whose broker is down, never sending it to another room', async () => {
    const { cluster, ledger, producer } = world({ sendTimeoutMs: 100 })
    live.push(producer)
    await producer.start()
    expect((await producer.send(order('p:k1', 0))).ok).toBe(true)
    cluster.brokers.get('a:10911')!.health = 'down'
    const r = await producer.send(order('p:k1', 1))
    expect(r.ok).toBe(false)
    expect(r.error).toMatch(/order-wait: broker-a, home of key p:k1/)
    expect(cluster.sent.map((s) => s.broker)).toEqual(['broker-a'])
    // Unordered sends of the same producer still fail over.
    expect(await producer.send({ body: 'y' })).toMatchObject({ ok: true, brokerName: 'broker-b' })
    cluster.brokers.get('a:10911')!.health = 'up'
    await until(() => ledger.kinds('broker-recovered').length === 1, 'the probe')
    const back = await producer.send(order('p:k1', 2))
    expect(back).toMatchObject({
      ok: true,
      brokerName: 'broker-a',
      queueId: cluster.sent[0]!.queueId
    })
  })

  it('wait: a key first sent after its home broker left the route still waits for that broker', async () => {
    const { cluster, ledger, producer } = world({ sendTimeoutMs: 100 })
    live.push(producer)
    await producer.start()
    expect((await producer.send(order('p:k1', 0))).ok).toBe(true)
    cluster.brokers.get('a:10911')!.health = 'down'
    expect((await producer.send(order('p:k1', 1))).ok).toBe(false)
    await until(
      () =>
        ledger.events.some(
          (e) =>
            e.kind === 'route-updated' &&
            !(e.data as { brokers: { name: string }[] }).brokers.some((b) => b.name === 'broker-a')
        ),
      'a route without broker-a'
    )
    // Over that route alone the new key would hash onto room 2's broker-b; it belongs to room 1.
    const r = await producer.send(order('p:k2', 0))
    expect(r.ok).toBe(false)
    expect(r.error).toMatch(/order-wait: broker-a, home of key p:k2/)
    expect(cluster.sent.map((s) => s.broker)).toEqual(['broker-a'])
  })

  it('wait: sends queued behind a held key expire at their own deadline instead of piling up', async () => {
    const { cluster, producer } = world({ sendTimeoutMs: 80 })
    live.push(producer)
    await producer.start()
    cluster.brokers.get('a:10911')!.health = 'down'
    const outcomes = await Promise.all([0, 1, 2, 3].map((seq) => producer.send(order('p:k1', seq))))
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false, false])
    // Called together, due together: once the first gave up, the others had no time left to try.
    expect(outcomes.slice(1).map((o) => o.attempts)).toEqual([0, 0, 0])
  })

  it('wait: after a send of a key ends unanswered, holds the key until the broker has surely stored or dropped it', async () => {
    const { cluster, producer } = world({
      sendTimeoutMs: 120,
      requestTimeoutMs: 50,
      orderFenceMs: 300
    })
    live.push(producer)
    await producer.start()
    expect((await producer.send(order('p:k1', 0))).ok).toBe(true)
    // The broker takes longer than the send's whole budget: the request may still be stored.
    cluster.slow.set('a:10911', 1000)
    const unanswered = await producer.send(order('p:k1', 1))
    expect(unanswered.ok).toBe(false)
    cluster.slow.delete('a:10911')
    const sentBefore = cluster.sent.length
    // The next message of the key is not sent while the earlier one may be stored after it.
    const held = await producer.send(order('p:k1', 2))
    expect(held).toMatchObject({ ok: false, attempts: 0 })
    expect(held.error).toMatch(/an earlier message of key p:k1 may still be stored/)
    expect(cluster.sent.length).toBe(sentBefore)
    // Other keys go on; and the key itself once the fence has passed.
    expect((await producer.send(order('p:k2', 0))).ok).toBe(true)
    await new Promise((r) => setTimeout(r, 300))
    expect(await producer.send(order('p:k1', 3))).toMatchObject({
      ok: true,
      brokerName: 'broker-a'
    })
  })

  it('reroute: sends the key to the other room while its broker is down, and home again after', async () => {
    const { cluster, ledger, producer } = world({ orderPolicy: 'reroute' })
    live.push(producer)
    await producer.start()
    const home = await producer.send(order('p:k1', 0))
    cluster.brokers.get('a:10911')!.health = 'down'
    expect(await producer.send(order('p:k1', 1))).toMatchObject({
      ok: true,
      brokerName: 'broker-b'
    })
    expect(ledger.kinds('broker-choice').at(-1)).toMatchObject({ reason: 'order-reroute' })
    cluster.brokers.get('a:10911')!.health = 'up'
    await until(() => ledger.kinds('broker-recovered').length === 1, 'the probe')
    await until(() => producer.routes.brokers.some((b) => b.brokerName === 'broker-a'), 'the route')
    const back = await producer.send(order('p:k1', 2))
    expect(back).toMatchObject({ brokerName: 'broker-a', queueId: home.queueId })
  })
})

describe('DrProducer, transactional sends', () => {
  const tx = (decision: 'commit' | 'rollback', viaCheck = false) => ({
    body: 'x',
    transaction: { decision, viaCheck }
  })

  it('sends a half message, then ends it with the local decision at the broker that stored it', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    const sent = await producer.send(tx('commit'))
    expect(sent.ok).toBe(true)
    const half = cluster.sent[0]!
    expect(half.sysFlag).toBe(0x4)
    expect(half.properties).toMatchObject({ TRAN_MSG: 'true', PGROUP: 'pg' })
    expect(cluster.ended).toHaveLength(1)
    expect(cluster.ended[0]).toMatchObject({
      addr: 'a:10911',
      input: {
        end: 'commit',
        msgId: sent.key,
        commitLogOffset: 1000,
        tranStateTableOffset: sent.queueOffset,
        producerGroup: 'pg',
        brokerName: 'broker-a'
      }
    })
    await producer.send(tx('rollback'))
    expect(cluster.ended[1]!.input.end).toBe('rollback')
    expect(ledger.sends.map((s) => [s.txDecision, s.txEnd])).toEqual([
      ['commit', 'end'],
      ['rollback', 'end']
    ])
  })

  it('a half message stored with a warning (synchronous master, slave gone) still runs its local transaction, and the row keeps the status (apache/rocketmq#3885)', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    cluster.sendStatus.set('a:10911', 'SLAVE_NOT_AVAILABLE')
    await producer.start()
    const sent = await producer.send(tx('commit'))
    expect(sent).toMatchObject({ ok: true, brokerName: 'broker-a' })
    // The stock client rolls such a half message back unrun; ours commits what it decided.
    expect(cluster.ended.map((e) => e.input.end)).toEqual(['commit'])
    expect(ledger.sends[0]).toMatchObject({
      status: 'acked',
      txDecision: 'commit',
      txEnd: 'end',
      error: 'SLAVE_NOT_AVAILABLE'
    })
    cluster.sendStatus.delete('a:10911')
    await producer.send(tx('commit'))
    expect(ledger.sends[1]).toMatchObject({ status: 'acked', error: null })
  })

  it('leaves a viaCheck transaction to the check-back, and answers it from its local transactions', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    const sent = await producer.send(tx('rollback', true))
    expect(cluster.ended).toHaveLength(0)
    expect(ledger.sends[0]).toMatchObject({ txDecision: 'rollback', txEnd: 'check' })
    cluster.checkBack('a:10911', { key: sent.key, group: 'pg', commitLogOffset: 1000 })
    await until(() => cluster.ended.length === 1, 'the check-back answer')
    expect(cluster.ended[0]!.input).toMatchObject({
      end: 'rollback',
      fromTransactionCheck: true,
      msgId: sent.key,
      commitLogOffset: 1000,
      tranStateTableOffset: 7
    })
    expect(ledger.events.filter((e) => e.kind === 'transaction-checked')).toMatchObject([
      { data: { key: sent.key, brokerName: 'broker-a', answer: 'rollback' } }
    ])
  })

  it('leaves unknown a check-back about a transaction it never ran, and ignores other groups', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    cluster.checkBack('a:10911', { key: 'someone-else', group: 'pg', commitLogOffset: 5 })
    cluster.checkBack('a:10911', { key: 'other-group', group: 'other', commitLogOffset: 6 })
    await new Promise((r) => setTimeout(r, 20))
    expect(cluster.ended).toHaveLength(0)
    expect(ledger.events.filter((e) => e.kind === 'transaction-checked')).toMatchObject([
      { data: { key: 'someone-else', answer: 'unknown' } }
    ])
  })

  it('a send that failed ran no local transaction: its stored half message is rolled back', async () => {
    const { cluster, ledger, producer } = world({ sendTimeoutMs: 100 })
    live.push(producer)
    await producer.start()
    cluster.brokers.get('a:10911')!.health = 'down'
    cluster.brokers.get('b:10911')!.health = 'down'
    const sent = await producer.send(tx('commit'))
    expect(sent.ok).toBe(false)
    expect(ledger.sends[0]).toMatchObject({ status: 'failed', txDecision: 'commit', txEnd: null })
    cluster.brokers.get('a:10911')!.health = 'up'
    cluster.checkBack('a:10911', { key: sent.key, group: 'pg', commitLogOffset: 9 })
    await until(() => cluster.ended.length === 1, 'the check-back answer')
    expect(cluster.ended[0]!.input.end).toBe('rollback')
  })

  it('records an END_TRANSACTION it could not write, leaving the answer to the check-back', async () => {
    const { cluster, ledger, producer } = world()
    live.push(producer)
    await producer.start()
    cluster.endsLost = true
    const sent = await producer.send(tx('commit'))
    expect(sent.ok).toBe(true)
    expect(ledger.sends[0]).toMatchObject({ txDecision: 'commit', txEnd: 'lost' })
    expect(ledger.events.filter((e) => e.kind === 'transaction-end-lost')).toMatchObject([
      { data: { key: sent.key, brokerName: 'broker-a', decision: 'commit' } }
    ])
  })
})
