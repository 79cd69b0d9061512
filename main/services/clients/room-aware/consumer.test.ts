import { afterEach, describe, expect, it } from 'vitest'
import { buildClientId } from './client-id'
import type { ConsumerOptions } from './consumer'
import { DrConsumer } from './consumer'
import { mayBeHandoff, resumeOffset } from './offset-memory'
import { FakeCluster, FakeManagement, RecordingLedger, until } from './test-fakes'

const mgmt = [
  { id: 'mgmt-1', room: 'room1', url: 'http://127.0.0.1:1' },
  { id: 'mgmt-2', room: 'room2', url: 'http://127.0.0.1:2' }
]

function world(extra: Partial<ConsumerOptions> = {}) {
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
  const consumer = new DrConsumer(
    {
      id: 'consumer-2',
      room: 'room2',
      topic: 'orders',
      group: 'cg',
      managementNodes: mgmt,
      // Long enough that only a broker notification can explain a quick rebalance.
      rebalanceIntervalMs: 60_000,
      routeRefreshMs: 60_000,
      heartbeatIntervalMs: 60_000,
      commitIntervalMs: 20,
      ...extra
    },
    { remoting: () => cluster.remoting(), management, ledger }
  )
  const other = buildClientId({ instance: 'consumer-1', room: 'room1' })
  const both = () => [other, consumer.cid]
  cluster.consumerIds.set('a:10911', both())
  cluster.consumerIds.set('b:10911', both())
  return { cluster, ledger, consumer, other }
}

const live: DrConsumer[] = []
afterEach(async () => {
  for (const c of live.splice(0)) await c.stop()
})

describe('DrConsumer', () => {
  it('puts its room in its client id and owns only its room while the other room has a consumer', async () => {
    const { consumer } = world()
    live.push(consumer)
    await consumer.start()
    expect(consumer.cid).toMatch(/@room2$/)
    expect(consumer.assignment().map((q) => q.room)).toEqual(['room2', 'room2', 'room2', 'room2'])
  })

  it('takes over an orphaned room at once when a broker notifies a membership change (scenario 4)', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    await consumer.start()
    cluster.backlog.set('broker-a#1', ['k1', 'k2'])
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => consumer.assignment().length === 8, 'the takeover')
    expect(ledger.kinds('consumer-takeover')[0]).toMatchObject({
      fromRoom: 'room1',
      toRoom: 'room2',
      queues: 4,
      trigger: 'notify'
    })
    await until(() => ledger.deliveries.length === 2, 'the backlog')
    expect(ledger.deliveries.map((d) => [d.key, d.brokerRoom, d.clientRoom])).toEqual([
      ['k1', 'room1', 'room2'],
      ['k2', 'room1', 'room2']
    ])
  })

  it('takes over in one round trip: asks the notifying broker alone, and pulls alongside the offset query', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    // consumer-1 had consumed k1 of room 1's queue 1 when it crashed.
    cluster.backlog.set('broker-a#1', ['k1', 'k2', 'k3'])
    cluster.offsets.set('broker-a#1', 1)
    await consumer.start()
    await until(() => cluster.offsetQueries.includes('broker-a#1'), 'the offsets read ahead')
    let listCallsAtTakeover = -1
    const record = ledger.event.bind(ledger)
    ledger.event = ((kind, ...rest) => {
      if (kind === 'consumer-takeover') listCallsAtTakeover = cluster.listCalls.length
      return record(kind, ...rest)
    }) as typeof ledger.event
    const lists = cluster.listCalls.length
    const pulls = cluster.pullCalls.length
    let answer = (): void => {}
    cluster.offsetGate = new Promise((r) => (answer = r))
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => cluster.pullCalls.slice(pulls).includes('broker-a#1'), 'the first pull')
    // Pulled while the broker's offset was still being asked: one round trip, not two in a row.
    expect(listCallsAtTakeover - lists).toBe(1)
    expect(cluster.listCalls[lists]).toBe('a:10911')
    expect(ledger.deliveries).toHaveLength(0)
    answer()
    await until(() => ledger.deliveries.length === 2, 'room 1’s messages')
    expect(ledger.deliveries.map((d) => d.key)).toEqual(['k2', 'k3'])
  })

  it('trims the first pull to the broker’s offset now: a peer’s last commit since the read-ahead is not redelivered', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    cluster.backlog.set('broker-a#1', ['k1', 'k2', 'k3', 'k4'])
    cluster.offsets.set('broker-a#1', 1)
    await consumer.start()
    await until(() => cluster.offsetQueries.includes('broker-a#1'), 'the offsets read ahead')
    // consumer-1 consumed k2 and k3, committed 3 at its graceful stop, and left.
    cluster.offsets.set('broker-a#1', 3)
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => ledger.deliveries.length === 1, 'room 1’s message')
    await new Promise((r) => setTimeout(r, 30))
    expect(ledger.deliveries.map((d) => d.key)).toEqual(['k4'])
  })

  it('without keepOffsets, reads a taken queue’s offset when it takes it (the round trip saved above)', async () => {
    const { cluster, ledger, consumer } = world({ keepOffsets: false })
    live.push(consumer)
    cluster.backlog.set('broker-a#1', ['k1', 'k2', 'k3'])
    cluster.offsets.set('broker-a#1', 1)
    await consumer.start()
    const queries = cluster.offsetQueries.length
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => ledger.deliveries.length === 2, 'room 1’s messages')
    expect(cluster.offsetQueries.slice(queries)).toContain('broker-a#1')
  })

  it('asks every broker when the notifying one does not list it yet, never dropping its queues', async () => {
    const { cluster, consumer } = world()
    live.push(consumer)
    await consumer.start()
    const lists = cluster.listCalls.length
    cluster.consumerIds.set('a:10911', [])
    cluster.consumerIds.set('b:10911', [consumer.cid])
    cluster.notify('a:10911', 'cg')
    await until(() => consumer.assignment().length === 8, 'the takeover')
    expect(new Set(cluster.listCalls.slice(lists))).toEqual(new Set(['a:10911', 'b:10911']))
  })

  it('ignores notifications for other groups', async () => {
    const { cluster, ledger, consumer } = world()
    live.push(consumer)
    await consumer.start()
    cluster.consumerIds.set('a:10911', [consumer.cid])
    cluster.notify('a:10911', 'someone-else')
    await new Promise((r) => setTimeout(r, 50))
    expect(consumer.assignment()).toHaveLength(4)
    expect(ledger.kinds('consumer-takeover')).toHaveLength(0)
  })

  it('graceful stop unregisters; a crash sends nothing', async () => {
    const a = world()
    await a.consumer.start()
    await a.consumer.stop('graceful')
    expect(a.cluster.unregistered).toContain(a.consumer.cid)
    const b = world()
    await b.consumer.start()
    await b.consumer.stop('crash')
    expect(b.cluster.unregistered).toEqual([])
    expect(b.ledger.kinds('client-stopped')).toEqual([{ role: 'consumer', mode: 'crash' }])
  })
})

describe('where a new group starts on an existing topic', () => {
  it('never before the run began, whatever offset the broker reports for the new group', async () => {
    const cluster = new FakeCluster()
    cluster.nameServers.set('ns1:9876', 'up')
    cluster.brokers.set('a:10911', { name: 'broker-a', room: 'room1', health: 'up' })
    // Messages of earlier runs (and of production) already sit in the queue.
    cluster.backlog.set('broker-a#0', ['old-1', 'old-2', 'old-3', 'run-1'])
    cluster.consumerIds.set('a:10911', [])
    const ledger = new RecordingLedger()
    const consumer = new DrConsumer(
      {
        id: 'consumer-1',
        room: 'room1',
        topic: 'payments',
        group: 'drstudio-run-9',
        managementNodes: [],
        initialNameServers: [{ id: 'ns-1', room: 'room1', address: 'ns1:9876' }],
        routeRefreshMs: 50,
        rebalanceIntervalMs: 50,
        pollTimeoutMs: 20,
        startOffsets: { 'broker-a#0': 3 }
      },
      { remoting: () => cluster.remoting(), management: new FakeManagement([]), ledger }
    )
    await consumer.start()
    await until(() => ledger.deliveries.length > 0, 'a delivery')
    await consumer.stop('crash')
    expect(ledger.deliveries.map((d) => d.key)).toEqual(['run-1'])
  })
})

describe('DrConsumer offsets', () => {
  const keys = (w: ReturnType<typeof world>) => w.ledger.deliveries.map((d) => d.key)
  const brokerB = (w: ReturnType<typeof world>) => w.cluster.brokers.get('b:10911')!

  /** Consumes k1..k3 from broker-b, loses broker-b (killed, dropped from the route), gets it back. */
  async function brokerForgets(keepOffsets: boolean): Promise<string[]> {
    const w = world({ keepOffsets, handoffMs: 0 })
    live.push(w.consumer)
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2', 'k3'])
    await w.consumer.start()
    await until(() => w.cluster.offsets.get('broker-b#0') === 3, 'the commit of k1..k3')
    brokerB(w).health = 'down'
    await w.consumer.routes.refresh('test')
    await until(() => !w.consumer.assignment().some((q) => q.brokerName === 'broker-b'), 'the loss')
    // SIGKILL: the broker comes back without the offsets it had not flushed yet.
    w.cluster.offsets.delete('broker-b#0')
    brokerB(w).health = 'up'
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2', 'k3', 'k4'])
    await w.consumer.routes.refresh('test')
    await until(() => keys(w).includes('k4'), 'k4 after the return')
    await until(() => w.cluster.offsets.get('broker-b#0') === 4, 'the commit of k4')
    return keys(w)
  }

  it('marks each queue whose pulls fail as stalled, once, and its return with how long it stalled', async () => {
    const w = world()
    live.push(w.consumer)
    await w.consumer.start()
    // Hung, not gone: the route keeps broker-b, so the consumer keeps its queues and cannot read them.
    brokerB(w).health = 'hung'
    await until(() => w.ledger.kinds('pull-failed').length === 4, 'a failed pull per queue')
    expect(w.ledger.kinds('pull-failed').map((e) => e.queueId)).toEqual(
      expect.arrayContaining([0, 1, 2, 3])
    )
    expect(w.ledger.kinds('pull-failed')[0]).toMatchObject({ brokerName: 'broker-b' })
    brokerB(w).health = 'up'
    await until(() => w.ledger.kinds('pull-resumed').length === 4, 'every queue answering again')
    expect(w.ledger.kinds('pull-failed')).toHaveLength(4)
    for (const e of w.ledger.kinds('pull-resumed')) {
      expect(e).toMatchObject({ brokerName: 'broker-b', brokerRoom: 'room2' })
      expect(e.stalledMs).toBeGreaterThanOrEqual(0)
    }
  })

  it('a broker that forgot its offsets does not make it redeliver what it consumed (and gets ours back)', async () => {
    expect(await brokerForgets(true)).toEqual(['k1', 'k2', 'k3', 'k4'])
  })

  it('without keepOffsets the same return redelivers the whole queue (the before)', async () => {
    expect(await brokerForgets(false)).toEqual(['k1', 'k2', 'k3', 'k1', 'k2', 'k3', 'k4'])
  })

  it('losing a queue in a rebalance commits how far it got, to the broker it came from', async () => {
    const w = world({ commitIntervalMs: 60_000 })
    live.push(w.consumer)
    w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
    w.cluster.backlog.set('broker-a#1', ['k1', 'k2'])
    await w.consumer.start()
    await until(() => keys(w).length === 2, 'room 1 backlog consumed by the taker-over')
    expect(w.cluster.commits).toEqual([])
    // consumer-1 is back: room 1's queues go home, and their offsets go to broker-a first.
    w.cluster.consumerIds.set('a:10911', [w.other, w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.other, w.consumer.cid])
    w.cluster.notify('a:10911', 'cg')
    await until(() => w.consumer.assignment().length === 4, 'the rebalance')
    await until(() => w.cluster.commits.length > 0, 'the commit')
    expect(w.cluster.commits).toContainEqual({ addr: 'a:10911', queue: 'broker-a#1', offset: 2 })
  })

  it('a queue a live peer may still commit is read after the handoff wait, not before', async () => {
    const w = world({ handoffMs: 60 })
    live.push(w.consumer)
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2', 'k3'])
    // The previous owner had committed 1, and its last commit (3) lands 20 ms into the handoff.
    w.cluster.offsets.set('broker-b#0', 1)
    setTimeout(() => w.cluster.offsets.set('broker-b#0', 3), 20)
    await w.consumer.start()
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2', 'k3', 'k4'])
    await until(() => keys(w).includes('k4'), 'k4')
    expect(keys(w)).toEqual(['k4'])
  })

  it('an orphaned room is taken at once: nobody else will commit its queues', () => {
    expect(mayBeHandoff('room1', ['room1'])).toBe(false)
    expect(mayBeHandoff('room1', [])).toBe(true)
    expect(mayBeHandoff(null, ['room1'])).toBe(true)
  })

  it('resumes at the broker offset unless it had consumed further, and not past the end of the queue', () => {
    expect(resumeOffset({ committed: undefined, remembered: undefined })).toBe(0)
    expect(resumeOffset({ committed: 5, remembered: undefined })).toBe(5)
    expect(resumeOffset({ committed: 5, remembered: 3 })).toBe(5)
    expect(resumeOffset({ committed: undefined, remembered: 7, maxOffset: 9 })).toBe(7)
    expect(resumeOffset({ committed: 2, remembered: 7, maxOffset: 7 })).toBe(7)
    // The queue is shorter than what we remember: the store was reset, the broker is all there is.
    expect(resumeOffset({ committed: 2, remembered: 7, maxOffset: 4 })).toBe(2)
  })
})

describe('DrConsumer, orderly', () => {
  const keys = (w: ReturnType<typeof world>) => w.ledger.deliveries.map((d) => d.key)

  it('pulls a queue only once its broker grants the lock, and reads the offset after it', async () => {
    const w = world({ orderly: true, lockRetryMs: 20 })
    live.push(w.consumer)
    // Another client still holds broker-b#0 (the previous owner, mid-handoff).
    w.cluster.locks.set('broker-b#0', 'someone-else')
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2'])
    w.cluster.backlog.set('broker-b#1', ['k3'])
    await w.consumer.start()
    await until(() => w.ledger.deliveries.some((d) => d.key === 'k3'), 'k3 from the free queue')
    expect(w.cluster.locks.get('broker-b#1')).toBe(w.consumer.cid)
    await until(() => w.ledger.kinds('queue-lock-wait').length === 1, 'the stall noted')
    expect(w.ledger.kinds('queue-lock-wait')[0]).toMatchObject({
      brokerName: 'broker-b',
      queueId: 0,
      reason: 'held by another client'
    })
    expect(w.ledger.deliveries.map((d) => d.key)).not.toContain('k1')
    // The previous owner committed 1 and gave the lock back: reading starts there.
    w.cluster.offsets.set('broker-b#0', 1)
    w.cluster.locks.delete('broker-b#0')
    await until(() => w.ledger.deliveries.some((d) => d.key === 'k2'), 'k2 once locked')
    expect(w.ledger.deliveries.map((d) => d.key)).not.toContain('k1')
    expect(w.ledger.kinds('queue-locked')[0]).toMatchObject({ brokerName: 'broker-b', queueId: 0 })
    expect(w.ledger.kinds('queue-locked')[0]!.waitedMs).toBeGreaterThan(0)
  })

  it('gives a lost queue’s lock back after committing its offset', async () => {
    const w = world({ orderly: true, commitIntervalMs: 60_000 })
    live.push(w.consumer)
    // Alone in the group: it takes room 1's queues too.
    w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
    w.cluster.backlog.set('broker-a#2', ['k1'])
    await w.consumer.start()
    await until(() => w.ledger.deliveries.length === 1, 'k1')
    expect(w.cluster.locks.get('broker-a#2')).toBe(w.consumer.cid)
    // consumer-1 is back: room 1's queues go home, committed first, then unlocked for it.
    w.cluster.consumerIds.set('a:10911', [w.other, w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.other, w.consumer.cid])
    w.cluster.notify('a:10911', 'cg')
    await until(() => w.consumer.assignment().length === 4, 'the rebalance')
    await until(() => !w.cluster.locks.has('broker-a#2'), 'the unlock')
    expect(w.cluster.commits).toContainEqual({ addr: 'a:10911', queue: 'broker-a#2', offset: 1 })
    const unlocks = w.cluster.lockCalls.filter((c) => c.op === 'unlock')
    expect(new Set(unlocks.map((c) => c.clientId))).toEqual(new Set([w.consumer.cid]))
    expect(unlocks.flatMap((c) => c.queues).sort()).toEqual(
      [0, 1, 2, 3].map((q) => `broker-a#${q}`)
    )
    // room 2's queues stay locked by it.
    expect(w.cluster.locks.get('broker-b#0')).toBe(w.consumer.cid)
  })

  it('gives back a lock that arrives after its queue was lost, not leaving it to expire', async () => {
    const w = world({ orderly: true })
    live.push(w.consumer)
    w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
    let open = (): void => undefined
    w.cluster.lockGate = new Promise((r) => (open = r))
    await w.consumer.start()
    await until(() => w.cluster.lockCalls.length === 8, 'every lock asked for')
    // consumer-1 joins while the answers are on their way: room 1's queues go to it.
    w.cluster.consumerIds.set('a:10911', [w.other, w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.other, w.consumer.cid])
    w.cluster.notify('a:10911', 'cg')
    await until(() => w.consumer.assignment().length === 4, 'the rebalance')
    open()
    await until(
      () => [0, 1, 2, 3].every((q) => !w.cluster.locks.has(`broker-a#${q}`)),
      'room 1’s locks given back'
    )
    await until(() => w.cluster.locks.get('broker-b#0') === w.consumer.cid, 'its own kept')
  })

  it('takes over a crashed peer’s queues at once, freeing the locks it left in its name', async () => {
    const w = world({ orderly: true })
    live.push(w.consumer)
    // consumer-1 held room 1's queues and crashed: the broker keeps its locks (a minute).
    for (let q = 0; q < 4; q++) w.cluster.locks.set(`broker-a#${q}`, w.other)
    w.cluster.backlog.set('broker-a#2', ['k1'])
    await w.consumer.start()
    w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
    w.cluster.notify('a:10911', 'cg')
    await until(() => w.ledger.deliveries.some((d) => d.key === 'k1'), 'room 1’s message')
    expect(w.cluster.locks.get('broker-a#2')).toBe(w.consumer.cid)
    const freed = w.ledger.kinds('queue-locked').find((e) => e.queueId === 2)
    expect(freed).toMatchObject({ brokerName: 'broker-a', freedFrom: [w.other] })
    const forged = w.cluster.lockCalls.filter((c) => c.op === 'unlock' && c.clientId === w.other)
    expect(forged.flatMap((c) => c.queues).sort()).toEqual([0, 1, 2, 3].map((q) => `broker-a#${q}`))
  })

  it('never frees the lock of a peer still in the group, nor with the setting off', async () => {
    for (const [name, extra, members] of [
      ['live peer', {}, 'both'],
      ['setting off', { freeDepartedLocks: false }, 'alone']
    ] as const) {
      const w = world({ orderly: true, ...extra })
      live.push(w.consumer)
      w.cluster.locks.set('broker-b#0', w.other)
      await w.consumer.start()
      if (members === 'alone') {
        w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
        w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
        w.cluster.notify('b:10911', 'cg')
      }
      await until(() => w.ledger.kinds('queue-lock-wait').length > 0, `${name}: the refusal`)
      await new Promise((r) => setTimeout(r, 50))
      expect(
        w.cluster.lockCalls.filter((c) => c.op === 'unlock' && c.clientId === w.other),
        name
      ).toEqual([])
      expect(w.cluster.locks.get('broker-b#0'), name).toBe(w.other)
      await w.consumer.stop()
    }
  })

  it('reads the offset again after its lock lapsed, not resuming where it was', async () => {
    const w = world({ orderly: true, lockRenewMs: 30, lockRetryMs: 20 })
    live.push(w.consumer)
    w.cluster.backlog.set('broker-b#0', ['k1'])
    await w.consumer.start()
    await until(() => keys(w).includes('k1'), 'k1')
    // Another client takes the lock, reads k2 and k3 and commits 3, then gives the lock back.
    w.cluster.locks.set('broker-b#0', 'thief')
    await until(() => w.ledger.kinds('queue-lock-wait').length > 0, 'the refused renewal')
    w.cluster.backlog.set('broker-b#0', ['k1', 'k2', 'k3', 'k4'])
    w.cluster.offsets.set('broker-b#0', 3)
    w.cluster.locks.delete('broker-b#0')
    await until(() => keys(w).includes('k4'), 'k4 once locked again')
    expect(keys(w)).toEqual(['k1', 'k4'])
  })

  it('frees no lock for a client listed again, even while another broker does not answer', async () => {
    const w = world({ orderly: true, lockRetryMs: 1000 })
    live.push(w.consumer)
    w.cluster.locks.set('broker-b#0', w.other)
    await w.consumer.start()
    await until(() => w.ledger.kinds('queue-lock-wait').length > 0, 'refused: consumer-1 holds it')
    // Right after a retry, so the next one (1 s on) comes after both steps below.
    const asked = () => w.cluster.lockCalls.filter((c) => c.queues.includes('broker-b#0')).length
    const n = asked()
    await until(() => asked() > n, 'a lock retry', 3000)
    // consumer-1 leaves every list (departed), then broker-a hangs and broker-b lists it again.
    w.cluster.consumerIds.set('a:10911', [w.consumer.cid])
    w.cluster.consumerIds.set('b:10911', [w.consumer.cid])
    await w.consumer.requestRebalance('test')
    w.cluster.brokers.get('a:10911')!.health = 'hung'
    w.cluster.consumerIds.set('b:10911', [w.other, w.consumer.cid])
    await w.consumer.requestRebalance('test')
    // Past the next lock retry: consumer-1 is alive, its lock is not freed in its name.
    const m = asked()
    await until(() => asked() > m, 'the next retry', 3000)
    expect(w.cluster.lockCalls.filter((c) => c.op === 'unlock' && c.clientId === w.other)).toEqual(
      []
    )
    expect(w.cluster.locks.get('broker-b#0')).toBe(w.other)
  })

  it('stops pulling a queue whose lock renewal is refused', async () => {
    const w = world({ orderly: true, lockRenewMs: 30, lockRetryMs: 1000 })
    live.push(w.consumer)
    await w.consumer.start()
    await until(() => w.cluster.locks.get('broker-b#3') === w.consumer.cid, 'the lock')
    w.cluster.locks.set('broker-b#3', 'thief')
    await until(() => w.ledger.kinds('queue-lock-wait').length > 0, 'the refused renewal')
    w.cluster.backlog.set('broker-b#3', ['late'])
    // Long enough for several pulls, had the queue still been pulled.
    await new Promise((r) => setTimeout(r, 150))
    expect(w.ledger.deliveries.map((d) => d.key)).not.toContain('late')
  })

  it('unordered consumers never ask for locks', async () => {
    const w = world()
    live.push(w.consumer)
    w.cluster.backlog.set('broker-b#0', ['k1'])
    await w.consumer.start()
    await until(() => w.ledger.deliveries.length === 1, 'k1')
    expect(w.cluster.lockCalls).toEqual([])
  })
})
