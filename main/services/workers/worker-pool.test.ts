import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { WorkerChannel, WorkerKey } from './client-fleet'
import { ClientFleet, workerIdsFor, workerKeyOf, workerName } from './client-fleet'
import type { ClientLane } from '../../../common/topology/lanes'
import type { ClientSpec, TxFact, WireRow, WorkerOp } from '../worker-wire/protocol'
import { PROTOCOL_VERSION } from '../worker-wire/protocol'
import { poolKeyOf, WorkerPool } from './worker-pool'

/** A worker process as the pool sees it: records requests, answers them, can die. */
class FakeWorker extends EventEmitter implements WorkerChannel {
  alive = true
  readonly ops: string[] = []
  readonly learned: string[] = []
  shutdowns = 0
  failRemove = false

  constructor(readonly pid: number) {
    super()
  }

  async request(op: WorkerOp, args: unknown): Promise<never> {
    if (!this.alive) throw new Error(`${op}: dead`)
    const a = args as { spec?: ClientSpec; id?: string }
    if (op === 'tx.learn')
      this.learned.push(...(args as { facts: TxFact[] }).facts.map((f) => f.key))
    this.ops.push(
      op === 'client.create'
        ? `create ${a.spec!.id}`
        : op === 'client.remove'
          ? `remove ${a.id}`
          : op
    )
    if (op === 'client.remove') {
      if (this.failRemove) throw new Error('remove timed out')
      // A graceful stop's last rows come before the answer, as in both real workers.
      this.emit('rows', [row(`stopped ${a.id}`)])
    }
    const result =
      op === 'hello'
        ? { protocol: PROTOCOL_VERSION, runtime: 'node', pid: this.pid, lanes: [] }
        : {}
    return result as never
  }

  async shutdown(): Promise<void> {
    this.shutdowns++
    this.die(true)
  }

  kill(): void {
    this.die(false)
  }

  die(expected: boolean): void {
    if (!this.alive) return
    this.alive = false
    this.emit('exit', { expected, code: expected ? 0 : null, signal: expected ? null : 'SIGKILL' })
  }
}

const row = (kind: string): WireRow => ({
  k: 'e',
  kind,
  clientId: null,
  room: 'room1',
  atMs: 0,
  data: {}
})

function spec(
  id: string,
  lane: ClientLane = 'remoting',
  management = 'http://10.0.0.1:8080'
): ClientSpec {
  return {
    id,
    role: 'producer',
    room: 'room1',
    lane,
    topic: 't',
    group: 'g',
    roomOrder: ['room1', 'room2'],
    managementNodes: [{ id: 'm1', room: 'room1', url: management }],
    nameServers: [],
    tag: 'dr',
    tuning: {},
    brokerRooms: {}
  }
}

function setup() {
  const spawned: FakeWorker[] = []
  const pool = new WorkerPool((_key: WorkerKey) => {
    const w = new FakeWorker(spawned.length + 1)
    spawned.push(w)
    return w
  })
  const fleet = (): { fleet: ClientFleet; rows: string[] } => {
    const f = new ClientFleet(pool.workers)
    const rows: string[] = []
    f.on('rows', (rs) => rows.push(...rs.map((r) => (r.k === 'e' ? r.kind : r.k))))
    return { fleet: f, rows }
  }
  return { pool, spawned, fleet }
}

describe('WorkerPool', () => {
  it('hands the next run the same process, with the last run’s clients removed and its rows delivered to it', async () => {
    const { pool, spawned, fleet } = setup()
    const run1 = fleet()
    await run1.fleet.create(spec('p1'))
    await run1.fleet.create(spec('p2'))
    await run1.fleet.close()
    expect(spawned).toHaveLength(1)
    expect(pool.spawned).toBe(1)
    expect(spawned[0]!.alive).toBe(true)
    expect(spawned[0]!.ops.slice(-3)).toEqual(['workload.stop', 'remove p1', 'remove p2'])
    expect(run1.rows.sort()).toEqual(['stopped p1', 'stopped p2'])

    const run2 = fleet()
    await run2.fleet.create(spec('p1'))
    expect(spawned).toHaveLength(1)
    spawned[0]!.emit('rows', [row('run 2 row')])
    expect(run2.rows).toEqual(['run 2 row'])
    // The first run's fleet hears nothing of the second.
    expect(run1.rows).not.toContain('run 2 row')
    await pool.close()
  })

  it('does not route a released run’s late rows anywhere', async () => {
    const { pool, spawned, fleet } = setup()
    const run1 = fleet()
    await run1.fleet.create(spec('p1'))
    await run1.fleet.close()
    spawned[0]!.emit('rows', [row('late')])
    expect(run1.rows).not.toContain('late')
    await pool.close()
  })

  it('spawns a new process for a worker that died, and for one that could not be reset', async () => {
    const { pool, spawned, fleet } = setup()
    const run1 = fleet()
    await run1.fleet.create(spec('p1'))
    await run1.fleet.close()
    spawned[0]!.kill()
    const run2 = fleet()
    await run2.fleet.create(spec('p1'))
    expect(spawned).toHaveLength(2)
    spawned[1]!.failRemove = true
    await run2.fleet.close()
    expect(spawned[1]!.shutdowns).toBe(1)
    const run3 = fleet()
    await run3.fleet.create(spec('p1'))
    expect(spawned).toHaveLength(3)
    await pool.close()
  })

  it('tells the fleet when its leased worker dies', async () => {
    const { pool, spawned, fleet } = setup()
    const run = fleet()
    const exits: string[] = []
    run.fleet.on('worker-exit', (e) => exits.push(`${e.worker}: ${e.reason}`))
    await run.fleet.create(spec('p1'))
    await run.fleet.start('p1', 1000)
    spawned[0]!.kill()
    expect(exits).toEqual(['worker-room1: killed by SIGKILL'])
    expect(run.fleet.isAlive('p1')).toBe(false)
    await pool.close()
  })

  it('tells the lane’s workers in other rooms the transactions one ran, and no other lane’s', async () => {
    const { spawned, fleet } = setup()
    const run = fleet()
    await run.fleet.create({ ...spec('p1-grpc', 'grpc'), room: 'room1' })
    await run.fleet.create({ ...spec('p2-grpc', 'grpc'), room: 'room2' })
    await run.fleet.create({ ...spec('p3-grpc', 'grpc'), room: 'room3' })
    await run.fleet.create({ ...spec('p1-baseline', 'baseline'), room: 'room2' })
    const [room1, room2, room3, baseline] = spawned as [
      FakeWorker,
      FakeWorker,
      FakeWorker,
      FakeWorker
    ]
    room1.emit('tx-ran', [{ key: 'p1-grpc-7', decision: 'commit', storedAs: 'M7' }])
    await Promise.resolve()
    expect(room2.learned).toEqual(['p1-grpc-7'])
    expect(room3.learned).toEqual(['p1-grpc-7'])
    expect(room1.learned).toEqual([])
    expect(baseline.learned).toEqual([])
    // A dead worker is not asked.
    room3.kill()
    room2.emit('tx-ran', [{ key: 'p2-grpc-1', decision: 'rollback', storedAs: null }])
    await Promise.resolve()
    expect(room1.learned).toEqual(['p2-grpc-1'])
    expect(room3.learned).toEqual(['p1-grpc-7'])
  })

  it('gives a lane variant a process of its own, named for it, beside its lane’s', async () => {
    const { pool, spawned, fleet } = setup()
    const run = fleet()
    await run.fleet.create(spec('p-remoting'))
    await run.fleet.create({ ...spec('p-hedged'), variant: 'remoting-hedged' })
    await run.fleet.create(spec('p2-remoting'))
    expect(spawned).toHaveLength(2)
    expect(spawned[0]!.ops).toEqual(['hello', 'create p-remoting', 'create p2-remoting'])
    expect(spawned[1]!.ops).toEqual(['hello', 'create p-hedged'])
    expect(
      workerName(workerKeyOf({ room: 'room1', lane: 'remoting', variant: 'remoting-hedged' }))
    ).toBe('remoting-hedged-worker-room1')
    expect(workerName(workerKeyOf({ room: 'room1', lane: 'remoting' }))).toBe('worker-room1')
    await run.fleet.close()
    await pool.close()
  })

  it('keeps Java workers with different JVM-wide settings apart', async () => {
    const { pool, spawned, fleet } = setup()
    const run1 = fleet()
    await run1.fleet.create(spec('j1', 'java'))
    await run1.fleet.close()
    const run2 = fleet()
    await run2.fleet.create(spec('j1', 'java', 'http://10.0.0.9:8080'))
    expect(spawned).toHaveLength(2)
    await run2.fleet.close()
    const run3 = fleet()
    await run3.fleet.create(spec('j1', 'java'))
    expect(spawned).toHaveLength(2)
    await pool.close()
  })

  it('shuts every worker down on close, leased or idle, and refuses leases after', async () => {
    const { pool, spawned, fleet } = setup()
    const run1 = fleet()
    await run1.fleet.create(spec('p1'))
    await run1.fleet.create(spec('j1', 'java'))
    await run1.fleet.close()
    const run2 = fleet()
    await run2.fleet.create(spec('p1'))
    expect(pool.size).toBe(2)
    await pool.close()
    expect(spawned.map((w) => w.alive)).toEqual([false, false])
    expect(pool.size).toBe(0)
    await expect(fleet().fleet.create(spec('p1'))).rejects.toThrow(/pool is closed/)
  })
})

describe('poolKeyOf', () => {
  const key = (lane: ClientLane): WorkerKey => ({ room: 'room1', lane })
  it('is the worker name for Node lanes, whatever the management node', () => {
    expect(poolKeyOf(key('grpc'), spec('a', 'grpc'))).toBe(
      poolKeyOf(key('grpc'), spec('b', 'grpc', 'http://x:1'))
    )
  })
  it('includes the address server and java-tuned timers for Java lanes', () => {
    const tuned = (ms: number): ClientSpec => ({
      ...spec('t', 'java-tuned'),
      tuning: { requestTimeoutMs: ms }
    })
    expect(poolKeyOf(key('java'), spec('a', 'java'))).not.toBe(
      poolKeyOf(key('java'), spec('a', 'java', 'http://x:1'))
    )
    expect(poolKeyOf(key('java-tuned'), tuned(400))).not.toBe(
      poolKeyOf(key('java-tuned'), tuned(900))
    )
    expect(poolKeyOf(key('java-tuned'), tuned(400))).toBe(poolKeyOf(key('java-tuned'), tuned(400)))
  })
})

describe('workerIdsFor', () => {
  it("places a room's Node workers first, then its Java ones (the order they get addresses in)", () => {
    expect(workerIdsFor(['room1', 'room2']).filter((w) => w.room === 'room1')).toEqual(
      [
        'worker-room1',
        'grpc-worker-room1',
        'baseline-worker-room1',
        'java-worker-room1',
        'java-zone-worker-room1',
        'java-tuned-worker-room1',
        'java-dr-worker-room1'
      ].map((id) => ({ id, room: 'room1' }))
    )
    expect(workerIdsFor(['room1', 'room2'])).toHaveLength(14)
  })
})
