import { afterEach, describe, expect, it } from 'vitest'
import type { ManagementAnswer, ManagementNodeRef, ManagementPort } from '../room-aware/ports'
import { RecordingLedger, until } from '../room-aware/test-fakes'
import { AttemptTimeout, reasonOf, withDeadline } from './deadline'
import { GrpcConsumer } from './grpc-consumer'
import { GrpcProducer, PROBE_TAG } from './grpc-producer'
import { proxiesOf } from './proxy-list'
import type {
  GrpcSdk,
  SdkCheckAnswer,
  SdkCheckedMessage,
  SdkMessage,
  SdkProducerOptions,
  SdkReceived
} from './sdk-port'
import { positionOfReceipt, RefusedMessageError } from './sdk-port'
import { LocalTransactions } from '../room-aware/local-transactions'
import type { TxDecision } from '../../../../common/scenario/transactions'

/**
 * Decision tests of the gRPC lanes with an in-memory library: which proxy a client uses, when it
 * moves and back, and what it records. The real library against real proxies is exercised by
 * test/integration/grpc-lane.test.ts.
 */
type Health = 'up' | 'down' | 'hung'

class FakeSdk implements GrpcSdk {
  health = new Map<string, Health>()
  sent: { endpoints: string; message: SdkMessage }[] = []
  queued = new Map<string, SdkReceived[]>()
  producers: string[] = []
  /** Endpoints whose clients fail to start (a proxy still booting). */
  refuseStart = new Set<string>()
  /** Endpoints whose clients never finish starting (a proxy that accepts and hangs). */
  hangStart = new Set<string>()
  /** Endpoints whose clients take this long to start (ms). */
  slowStart = new Map<string, number>()
  /** Delayed messages the proxies refuse (a topic whose type does not take them). */
  refuseDelayed = false
  private seq = 0

  private gate(endpoints: string): Promise<void> {
    const h = this.health.get(endpoints) ?? 'up'
    if (h === 'down') return Promise.reject(new Error('14 UNAVAILABLE: connect ECONNREFUSED'))
    if (h === 'hung') return new Promise(() => {})
    return Promise.resolve()
  }

  /** END_TRANSACTION calls, and each producer's check-back answerer by endpoints. */
  ended: { messageId: string; decision: string }[] = []
  checkers = new Map<string, (m: SdkCheckedMessage) => SdkCheckAnswer>()

  producer(o: SdkProducerOptions) {
    this.producers.push(o.endpoints)
    if (o.checker) this.checkers.set(o.endpoints, o.checker)
    const send = async (message: SdkMessage) => {
      await this.gate(o.endpoints)
      if (this.refuseDelayed && message.deliveryTimestamp) {
        throw new RefusedMessageError('message_property_conflict_with_type')
      }
      this.sent.push({ endpoints: o.endpoints, message })
      return { messageId: `m${++this.seq}`, offset: this.seq, brokerName: 'b', queueId: 0 }
    }
    return {
      sendHalf: async (message: SdkMessage) => {
        const receipt = await send(message)
        return {
          receipt,
          end: async (decision: string) => {
            await this.gate(o.endpoints)
            this.ended.push({ messageId: receipt.messageId, decision })
          }
        }
      },
      startup: () =>
        this.slowStart.has(o.endpoints)
          ? new Promise<void>((r) => setTimeout(r, this.slowStart.get(o.endpoints)))
          : this.hangStart.has(o.endpoints)
            ? new Promise<void>(() => {})
            : this.refuseStart.has(o.endpoints)
              ? Promise.reject(new Error('Failed to fetch topic routes after 3 attempts'))
              : Promise.resolve(),
      shutdown: () => Promise.resolve(),
      send
    }
  }

  simpleConsumer(o: { endpoints: string }) {
    return {
      startup: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
      receive: async () => {
        await this.gate(o.endpoints)
        await new Promise((r) => setTimeout(r, 2))
        const q = this.queued.get(o.endpoints) ?? []
        this.queued.set(o.endpoints, [])
        return q
      },
      ack: () => Promise.resolve()
    }
  }
}

const MGMT: ManagementNodeRef[] = [
  { id: 'mgmt-1', room: 'room1', url: 'http://m1' },
  { id: 'mgmt-2', room: 'room2', url: 'http://m2' }
]

class Proxies implements ManagementPort {
  list = [
    { id: 'proxy-1', room: 'room1', address: 'p1:1', zoneMode: true, available: true },
    { id: 'proxy-plain', room: 'room1', address: 'pp:1', zoneMode: false, available: true },
    { id: 'proxy-2', room: 'room2', address: 'p2:1', zoneMode: true, available: true }
  ]
  async fetchNameServers(node: ManagementNodeRef): Promise<ManagementAnswer> {
    return {
      room: node.room,
      nameServers: [],
      proxies: this.list.map((p) => ({ ...p, lastProbeAt: null, latencyMs: null, lastError: null }))
    }
  }
}

const stoppers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(stoppers.splice(0).map((s) => s()))
})

function producer(
  lane: 'grpc' | 'baseline',
  extra: object = {},
  deps: { transactions?: LocalTransactions } = {}
) {
  const sdk = new FakeSdk()
  const ledger = new RecordingLedger()
  const management = new Proxies()
  const p = new GrpcProducer(
    {
      id: 'producer-1',
      room: 'room1',
      topic: 't',
      group: 'g',
      managementNodes: MGMT,
      lane,
      roomOrder: ['room1', 'room2'],
      requestTimeoutMs: 50,
      sendTimeoutMs: 400,
      probeIntervalMs: 20,
      ...extra
    },
    { sdk, ledger, management, ...deps }
  )
  stoppers.push(() => p.stop('crash'))
  return { p, sdk, ledger, management }
}

describe('GrpcProducer, grpc lane', () => {
  it("sends through its room's zone-pinned proxy and records the proxy as entry point", async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    const r = await p.send({ body: 'x', tags: 'dr', keys: ['k1'] })
    expect(r).toMatchObject({ ok: true, key: 'k1', brokerRoom: 'room1', attempts: 1 })
    expect(sdk.sent.map((s) => s.endpoints)).toEqual(['p1:1'])
    expect(sdk.sent[0]!.message).toMatchObject({ tag: 'dr', keys: ['k1'] })
    expect(ledger.sends[0]).toMatchObject({
      key: 'k1',
      namesrvId: 'proxy-1',
      namesrvRoom: 'room1',
      brokerRoom: 'room1',
      status: 'acked'
    })
    expect(p.choice()).toMatchObject({ namesrvId: 'proxy-1', brokerRoom: 'room1' })
  })

  it('sends a delayed message with its due time as the deliveryTimestamp, and records the due time', async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    const dueAt = Date.now() + 2000.4
    await p.send({ body: 'x', keys: ['k1'], scheduledAt: 1000, deliverAt: dueAt })
    await p.send({ body: 'x', keys: ['k2'], scheduledAt: 1050 })
    const [delayed, plain] = sdk.sent.filter((x) => x.message.keys?.[0]?.startsWith('k'))
    expect(delayed!.message.deliveryTimestamp).toEqual(new Date(Math.round(dueAt)))
    expect(plain!.message.deliveryTimestamp).toBeUndefined()
    expect(ledger.sends.map((r) => [r.key, r.dueAt])).toEqual([
      ['k1', dueAt],
      ['k2', null]
    ])
  })

  it("sends an ordered message in its key's message group and records the key and sequence", async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    await p.send({ body: 'x', keys: ['k1'], order: { key: 'producer-1-key-3', seq: 7 } })
    await p.send({ body: 'x', keys: ['k2'] })
    const [ordered, plain] = sdk.sent.filter((x) => x.message.keys?.[0]?.startsWith('k'))
    expect(ordered!.message.messageGroup).toBe('producer-1-key-3')
    expect(plain!.message.messageGroup).toBeUndefined()
    expect(ledger.sends.map((r) => [r.key, r.orderKey, r.orderSeq])).toEqual([
      ['k1', 'producer-1-key-3', 7],
      ['k2', null, null]
    ])
  })

  it('sends a transaction as a half message, ends it with the local decision, and records both', async () => {
    const { p, sdk, ledger } = producer('grpc', { transactional: true })
    await p.start()
    expect(
      (
        await p.send({
          body: 'x',
          keys: ['t1'],
          transaction: { decision: 'commit', viaCheck: false }
        })
      ).ok
    ).toBe(true)
    await p.send({
      body: 'x',
      keys: ['t2'],
      transaction: { decision: 'rollback', viaCheck: false }
    })
    expect(sdk.ended.map((e) => e.decision)).toEqual(['commit', 'rollback'])
    expect(ledger.sends.map((s) => [s.key, s.txDecision, s.txEnd])).toEqual([
      ['t1', 'commit', 'end'],
      ['t2', 'rollback', 'end']
    ])
  })

  it("leaves a viaCheck transaction to the proxy's check-back, answering only for the copy it acknowledged", async () => {
    const { p, sdk, ledger } = producer('grpc', { transactional: true })
    await p.start()
    await p.send({ body: 'x', keys: ['t1'], transaction: { decision: 'commit', viaCheck: true } })
    expect(sdk.ended).toEqual([])
    expect(ledger.sends[0]).toMatchObject({ txDecision: 'commit', txEnd: 'check' })
    const acked = sdk.sent.find((s) => s.message.keys?.[0] === 't1')!
    const messageId = `m${sdk.sent.indexOf(acked) + 1}`
    const check = sdk.checkers.get('p1:1')!
    expect(check({ messageId, keys: ['t1'] })).toBe('commit')
    // Another copy of the same transaction (a timed-out attempt's): never committed twice.
    expect(check({ messageId: 'm-other', keys: ['t1'] })).toBe('rollback')
    // Not one this producer ran: the proxy asks again later.
    expect(check({ messageId: 'm-x', keys: ['t9'] })).toBe('unknown')
    expect(ledger.kinds('transaction-checked').map((e) => e.answer)).toEqual([
      'commit',
      'rollback',
      'unknown'
    ])
  })

  it('answers a check-back about another room’s transaction from the lane’s shared store', async () => {
    // Room 1's worker shares what its producer ran; room 2's learns it (client-fleet.ts relays).
    const facts: [string, TxDecision, string | null][] = []
    const room1 = new LocalTransactions(
      () => 0,
      60_000,
      (...f) => facts.push(f)
    )
    const room2 = new LocalTransactions(() => 0)
    const one = producer('grpc', { transactional: true }, { transactions: room1 })
    const two = producer('grpc', { transactional: true }, { transactions: room2 })
    await one.p.start()
    await two.p.start()
    await one.p.send({
      body: 'x',
      keys: ['t1'],
      transaction: { decision: 'commit', viaCheck: true }
    })
    const messageId = `m${one.sdk.sent.findIndex((s) => s.message.keys?.[0] === 't1') + 1}`
    const check = two.sdk.checkers.get('p1:1')!
    // Asked before it learned: not one it knows, the proxy asks again.
    expect(check({ messageId, keys: ['t1'] })).toBe('unknown')
    for (const f of facts) room2.learn(...f)
    expect(check({ messageId, keys: ['t1'] })).toBe('commit')
    expect(check({ messageId: 'm-other', keys: ['t1'] })).toBe('rollback')
  })

  it('tells the check-back to roll back a transaction whose send failed (its local transaction never ran)', async () => {
    const { p, sdk } = producer('grpc', { transactional: true })
    await p.start()
    sdk.health.set('p1:1', 'down')
    sdk.health.set('p2:1', 'down')
    const r = await p.send({
      body: 'x',
      keys: ['t1'],
      transaction: { decision: 'commit', viaCheck: false }
    })
    expect(r.ok).toBe(false)
    expect(sdk.checkers.get('p1:1')!({ messageId: 'm-stray', keys: ['t1'] })).toBe('rollback')
  })

  it("sends a transactional producer's other sends (the warm-up's) as half messages rolled back at once", async () => {
    const { p, sdk, ledger } = producer('grpc', { transactional: true })
    await p.start()
    expect((await p.send({ body: 'w', keys: ['w1'], tags: 'warmup', record: false })).ok).toBe(true)
    expect(sdk.ended.map((e) => e.decision)).toEqual(['rollback'])
    expect(ledger.sends).toEqual([])
    // Asked about it later, the producer says the same.
    const id = `m${sdk.sent.findIndex((s) => s.message.keys?.[0] === 'w1') + 1}`
    expect(sdk.checkers.get('p1:1')!({ messageId: id, keys: ['w1'] })).toBe('rollback')
  })

  it('gives the library no checker when the producer is not transactional', async () => {
    const { p, sdk } = producer('grpc')
    await p.start()
    expect(sdk.checkers.size).toBe(0)
  })

  it("moves to room 2's proxy on a refused send, logging one failover for many failed sends", async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    sdk.health.set('p1:1', 'down')
    const rs = await Promise.all([1, 2, 3, 4].map((i) => p.send({ body: 'x', keys: [`k${i}`] })))
    expect(rs.every((r) => r.ok && r.brokerRoom === 'room2')).toBe(true)
    const failovers = ledger.kinds('broker-failover')
    expect(failovers).toHaveLength(1)
    expect(failovers[0]).toMatchObject({
      from: 'proxy-1',
      to: 'proxy-2',
      fromRoom: 'room1',
      toRoom: 'room2'
    })
    expect(ledger.kinds('send-attempt-failed').length).toBeGreaterThanOrEqual(1)
  })

  it('fails a message the proxy refuses at once and stays on its proxy: any proxy would refuse it', async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    sdk.refuseDelayed = true
    const r = await p.send({ body: 'x', keys: ['k1'], deliverAt: Date.now() + 1000 })
    expect(r).toMatchObject({
      ok: false,
      attempts: 1,
      error: 'message_property_conflict_with_type'
    })
    expect(ledger.kinds('broker-failover')).toHaveLength(0)
    // Plain messages still go through room 1's proxy.
    expect(await p.send({ body: 'x', keys: ['k2'] })).toMatchObject({
      ok: true,
      brokerRoom: 'room1'
    })
    expect(p.choice()).toMatchObject({ namesrvId: 'proxy-1' })
  })

  it('treats a hung proxy as failed after its own attempt deadline', async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    sdk.health.set('p1:1', 'hung')
    const r = await p.send({ body: 'x', keys: ['k'] })
    expect(r).toMatchObject({ ok: true, attempts: 2, brokerRoom: 'room2' })
    expect(ledger.kinds('send-attempt-failed')[0]).toMatchObject({ reason: 'timeout (50 ms)' })
  })

  it('moves back once a probe through the own room proxy succeeds', async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    sdk.health.set('p1:1', 'down')
    await p.send({ body: 'x', keys: ['a'] })
    expect(p.selector.current?.id).toBe('proxy-2')
    sdk.health.set('p1:1', 'up')
    await until(() => p.selector.current?.id === 'proxy-1', 'fail-back to proxy-1')
    expect(ledger.kinds('broker-recovered')[0]).toMatchObject({ brokerName: 'proxy-1' })
    expect(sdk.sent.some((s) => s.endpoints === 'p1:1' && s.message.tag === PROBE_TAG)).toBe(true)
    const r = await p.send({ body: 'x', keys: ['b'] })
    expect(r.brokerRoom).toBe('room1')
  })

  it('does not probe a proxy the management node reports down', async () => {
    const { p, sdk, management } = producer('grpc')
    await p.start()
    sdk.health.set('p1:1', 'down')
    await p.send({ body: 'x', keys: ['a'] })
    management.list[0]!.available = false
    await p.selector.directory.refresh('periodic')
    sdk.health.set('p1:1', 'up')
    const probesBefore = sdk.sent.filter((s) => s.message.tag === PROBE_TAG).length
    await new Promise((r) => setTimeout(r, 100))
    expect(sdk.sent.filter((s) => s.message.tag === PROBE_TAG).length).toBe(probesBefore)
    expect(p.selector.current?.id).toBe('proxy-2')
  })

  it('fails a send (recorded, not acknowledged) when every proxy fails until the deadline', async () => {
    const { p, sdk, ledger } = producer('grpc')
    await p.start()
    sdk.health.set('p1:1', 'down')
    sdk.health.set('p2:1', 'down')
    const r = await p.send({ body: 'x', keys: ['k'] })
    expect(r.ok).toBe(false)
    expect(ledger.sends.at(-1)).toMatchObject({ key: 'k', status: 'failed' })
    expect(ledger.kinds('send-failed')).toHaveLength(1)
    expect(p.stats()).toMatchObject({ sent: 1, acked: 0, failed: 1 })
  })

  it("starts on room 2's proxy when room 1's cannot start yet, and returns once it can", async () => {
    const { p, sdk, ledger } = producer('grpc')
    sdk.refuseStart.add('p1:1')
    await p.start()
    expect(p.selector.current?.id).toBe('proxy-2')
    expect(ledger.kinds('broker-isolated')[0]).toMatchObject({ brokerName: 'proxy-1' })
    sdk.refuseStart.delete('p1:1')
    await until(() => p.selector.current?.id === 'proxy-1', 'back on proxy-1')
  })

  it("starts on room 2's proxy when room 1's hangs at start, within the start's deadline", async () => {
    const { p, sdk, ledger } = producer('grpc')
    sdk.hangStart.add('p1:1')
    await p.start(400)
    expect(p.selector.current?.id).toBe('proxy-2')
    expect(ledger.kinds('broker-isolated')[0]).toMatchObject({
      brokerName: 'proxy-1',
      reason: expect.stringMatching(/timeout/)
    })
  })

  it("gives room 2's proxy the rest of the start once room 1's has hung, not a half of it", async () => {
    const { p, sdk } = producer('grpc')
    sdk.hangStart.add('p1:1')
    // proxy-1 gets half of 600 ms; proxy-2, the last one not failed, needs 200 of the 300 left.
    sdk.slowStart.set('p2:1', 200)
    await p.start(600)
    expect(p.selector.current?.id).toBe('proxy-2')
  })

  it('once every proxy has failed to start, starts on the first that does', async () => {
    const { p, sdk, ledger } = producer('grpc')
    sdk.hangStart.add('p1:1')
    sdk.refuseStart.add('p2:1')
    // proxy-1 hangs through half of 1200 ms, proxy-2 refuses at once; proxy-2 can start at 800 ms.
    setTimeout(() => sdk.refuseStart.delete('p2:1'), 800)
    await p.start(1200)
    expect(p.selector.current?.id).toBe('proxy-2')
    expect(ledger.kinds('broker-isolated').map((e) => e.brokerName)).toEqual(['proxy-1', 'proxy-2'])
    expect(ledger.kinds('broker-recovered')[0]).toMatchObject({ brokerName: 'proxy-2' })
  })

  it('names every proxy it tried when none starts', async () => {
    const { p, sdk } = producer('grpc')
    sdk.hangStart.add('p1:1')
    sdk.refuseStart.add('p2:1')
    await expect(p.start(500)).rejects.toThrow(
      /producer-1 could not start on any proxy \(proxy-1, proxy-2: timeout .*; last start failed: Failed to fetch topic routes/
    )
  })

  it('records nothing for warm-up sends', async () => {
    const { p, ledger } = producer('grpc')
    await p.start()
    await p.send({ body: 'x', record: false })
    expect(ledger.sends).toHaveLength(0)
    expect(p.stats().sent).toBe(0)
  })

  it('names the problem when no management node lists a zone-pinned proxy', async () => {
    const { p, management } = producer('grpc')
    management.list = management.list.filter((x) => !x.zoneMode)
    await expect(p.start(300)).rejects.toThrow(/no usable proxy/)
  })
})

describe('GrpcProducer, baseline lane', () => {
  it("uses one endpoint, the own room's plain proxy, and never moves", async () => {
    const { p, sdk, ledger } = producer('baseline')
    await p.start()
    expect(sdk.producers).toEqual(['pp:1'])
    expect((await p.send({ body: 'x', keys: ['a'] })).ok).toBe(true)
    sdk.health.set('pp:1', 'down')
    const r = await p.send({ body: 'x', keys: ['b'] })
    expect(r.ok).toBe(false)
    expect(ledger.kinds('broker-failover')).toHaveLength(0)
    expect(ledger.sends.map((s) => [s.key, s.status, s.brokerRoom])).toEqual([
      ['a', 'acked', null],
      ['b', 'failed', null]
    ])
  })

  it('takes the endpoints string a user wrote', async () => {
    const { p, sdk } = producer('baseline', { endpoints: 'h1:1;h2:2' })
    await p.start()
    expect(sdk.producers).toEqual(['h1:1;h2:2'])
  })
})

describe('GrpcConsumer', () => {
  function consumer(lane: 'grpc' | 'baseline') {
    const sdk = new FakeSdk()
    const ledger = new RecordingLedger()
    const c = new GrpcConsumer(
      {
        id: 'consumer-1',
        room: 'room1',
        topic: 't',
        group: 'g',
        managementNodes: MGMT,
        lane,
        expression: 'dr',
        pollTimeoutMs: 20,
        requestTimeoutMs: 20,
        probeIntervalMs: 20
      },
      { sdk, ledger, management: new Proxies() }
    )
    stoppers.push(() => c.stop('crash'))
    return { c, sdk, ledger }
  }
  const msg = (key: string, tag = 'dr'): SdkReceived => ({
    messageId: `id-${key}`,
    keys: [key],
    tag,
    offset: 7,
    brokerName: null,
    queueId: null,
    bornAt: 1,
    handle: null
  })

  it('receives through its room proxy and records workload messages by their key', async () => {
    const { c, sdk, ledger } = consumer('grpc')
    sdk.queued.set('p1:1', [msg('k1'), msg('w', 'warmup')])
    await c.start()
    await until(() => ledger.deliveries.length === 1, 'one delivery')
    expect(ledger.deliveries[0]).toMatchObject({
      key: 'k1',
      brokerName: 'proxy-1',
      brokerRoom: 'room1',
      clientRoom: 'room1'
    })
    expect(c.stats().consumed).toBe(1)
  })

  it('records the stored position the receipt handle names, so a redelivery is told from a second copy', async () => {
    const { c, sdk, ledger } = consumer('grpc')
    sdk.queued.set('p1:1', [{ ...msg('k1'), brokerName: 'broker-a', queueId: 2, offset: 40 }])
    await c.start()
    await until(() => ledger.deliveries.length === 1, 'one delivery')
    expect(ledger.deliveries[0]).toMatchObject({
      key: 'k1',
      brokerName: 'broker-a',
      queueId: 2,
      queueOffset: 40
    })
  })

  it("moves to room 2's proxy when receives fail, and back when room 1's works again", async () => {
    const { c, sdk, ledger } = consumer('grpc')
    await c.start()
    sdk.health.set('p1:1', 'down')
    await until(() => c.selector.current?.id === 'proxy-2', 'failover to proxy-2')
    sdk.queued.set('p2:1', [msg('k2')])
    await until(
      () => ledger.deliveries.some((d) => d.key === 'k2' && d.brokerRoom === 'room2'),
      'delivery via proxy-2'
    )
    sdk.health.set('p1:1', 'up')
    sdk.queued.set('p1:1', [msg('k1')])
    await until(() => c.selector.current?.id === 'proxy-1', 'fail-back to proxy-1')
    await until(() => ledger.deliveries.some((d) => d.key === 'k1'), 'stranded message drained')
    expect(ledger.kinds('pull-failed')[0]).toMatchObject({ brokerName: 'proxy-1' })
  })

  it('baseline never moves off its endpoint', async () => {
    const { c, sdk, ledger } = consumer('baseline')
    await c.start()
    sdk.health.set('pp:1', 'down')
    await until(() => ledger.kinds('pull-failed').length > 0, 'a failed receive')
    expect(ledger.kinds('broker-failover')).toHaveLength(0)
    expect(c.choice()).toMatchObject({ namesrvId: 'proxy-plain' })
  })
})

describe('helpers', () => {
  it('withDeadline rejects late work with AttemptTimeout and passes early results', async () => {
    await expect(withDeadline(new Promise(() => {}), 5)).rejects.toBeInstanceOf(AttemptTimeout)
    await expect(withDeadline(Promise.resolve(3), 50)).resolves.toBe(3)
  })

  it('reasonOf turns gRPC errors into status names', () => {
    expect(reasonOf(new Error('14 UNAVAILABLE: connect ECONNREFUSED'))).toBe('unavailable')
    expect(reasonOf(new AttemptTimeout(400))).toBe('timeout (400 ms)')
    expect(reasonOf(new Error('plain\nsecond line'))).toBe('plain')
  })

  it('proxiesOf keeps good rows and drops bad ones', () => {
    const answer = {
      room: 'room1',
      nameServers: [],
      proxies: [{ id: 'p', room: 'r', address: 'a:1' }, { id: 3 }]
    } as unknown as ManagementAnswer
    expect(proxiesOf(answer)).toEqual([
      { id: 'p', room: 'r', address: 'a:1', zoneMode: true, available: null }
    ])
    expect(proxiesOf(undefined)).toEqual([])
  })
})

/** The next send through `proxyId`'s library client answers `ms` late; the others at once. */
function slowFirstSend(p: GrpcProducer, proxyId: string, ms: number): void {
  let first = true
  const pooled = (
    p as unknown as { pool: Map<string, { sdk: { send: (m: SdkMessage) => Promise<unknown> } }> }
  ).pool.get(proxyId)!
  const send = pooled.sdk.send.bind(pooled.sdk)
  pooled.sdk.send = (m: SdkMessage) => {
    if (first) {
      first = false
      return new Promise((r) => setTimeout(() => r(send(m)), ms))
    }
    return send(m)
  }
}

describe('GrpcProducer, busy proxy', () => {
  it('retries a late send on the same proxy while other sends through it complete', async () => {
    const { p, ledger } = producer('grpc', { requestTimeoutMs: 60, sendTimeoutMs: 1000 })
    await p.start()
    // One slow send: the proxy answers other sends meanwhile, so it is busy, not dead.
    slowFirstSend(p, 'proxy-1', 120)
    const slow = p.send({ body: 'x', keys: ['slow'] })
    await p.send({ body: 'x', keys: ['fast'] })
    const r = await slow
    expect(r).toMatchObject({ ok: true, brokerRoom: 'room1', attempts: 2 })
    expect(ledger.kinds('broker-failover')).toHaveLength(0)
    expect(p.selector.current?.id).toBe('proxy-1')
  })

  it('retries a late send through the proxy the client uses now, its own once it is back', async () => {
    const { p, sdk } = producer('grpc', { requestTimeoutMs: 150, sendTimeoutMs: 2000 })
    sdk.refuseStart.add('p1:1')
    await p.start()
    expect(p.selector.current?.id).toBe('proxy-2')
    slowFirstSend(p, 'proxy-2', 600)
    const slow = p.send({ body: 'x', keys: ['slow'] })
    // proxy-2 answers another send (busy, not dead) and proxy-1 starts: the next probe moves back.
    await p.send({ body: 'x', keys: ['fast'] })
    sdk.refuseStart.delete('p1:1')
    await until(() => p.selector.current?.id === 'proxy-1', 'back on proxy-1')
    expect(await slow).toMatchObject({ ok: true, brokerRoom: 'room1', attempts: 2 })
  })
})

describe('positionOfReceipt', () => {
  it("reads broker, queue and offset from a broker's POP receipt handle", () => {
    // ReceiptHandle.encode: startOffset retrieveTime invisibleTime reviveQid type broker queue offset [commitLogOffset]
    expect(positionOfReceipt('12 1733300000000 15000 0 0 broker-a 3 14 20480')).toEqual({
      brokerName: 'broker-a',
      queueId: 3,
      offset: 14
    })
    expect(positionOfReceipt('12 1733300000000 15000 0 1 broker-b 0 9')).toEqual({
      brokerName: 'broker-b',
      queueId: 0,
      offset: 9
    })
  })

  it('says nothing for a handle of another shape', () => {
    expect(positionOfReceipt('')).toBeNull()
    expect(positionOfReceipt('a b c')).toBeNull()
    expect(positionOfReceipt('12 1 15000 0 0 broker-a x 14')).toBeNull()
  })
})
