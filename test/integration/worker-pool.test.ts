import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { findJava } from '../../main/services/sandbox'
import type { WorkerFactory } from '../../main/services/workers/client-fleet'
import { ClientFleet, workerName } from '../../main/services/workers/client-fleet'
import {
  javaWorkerCommand,
  javaWorkerJar,
  planJavaWorkers
} from '../../main/services/workers/java-worker-command'
import type { ClientLane } from '../../common/topology/lanes'
import type { ClientSpec } from '../../main/services/worker-wire/protocol'
import { roomWorkerEntry } from '../../main/services/workers/worker-launcher'
import { WorkerConnection } from '../../main/services/workers/worker-connection'
import { WorkerPool } from '../../main/services/workers/worker-pool'

/**
 * The real worker processes (our Node room worker and the Java client worker JVM) kept from one run
 * to the next: the second run's fleet gets the same processes, and can create the clients the first
 * run had (they were removed, or `client.create` would refuse the id). No cluster: clients are
 * created, not started.
 */

const REPO = resolve(import.meta.dirname, '../..')
const dir = mkdtempSync(join(tmpdir(), 'drstudio-it-worker-pool-'))

const spec = (id: string, lane: ClientLane): ClientSpec => ({
  id,
  role: id.startsWith('producer') ? 'producer' : 'consumer',
  room: 'room1',
  lane,
  topic: 'pool-t',
  group: 'pool-g',
  tag: 'dr',
  roomOrder: ['room1', 'room2'],
  managementNodes: [],
  nameServers: [{ id: 'ns-x', room: 'room1', address: '127.0.0.1:1' }],
  brokerRooms: { 'broker-a': 'room1' },
  tuning: {}
})

const spawnedPids: number[] = []
const spawn: WorkerFactory = (key, first) => {
  const name = workerName(key)
  const node = roomWorkerEntry(REPO, { preferBuilt: false })
  const plan = planJavaWorkers([first])[0]
  mkdirSync(join(dir, name), { recursive: true })
  const command = plan
    ? javaWorkerCommand({
        java: findJava().path,
        rocketmqLib: join(REPO, '.rocketmq', 'lib'),
        workerJar: javaWorkerJar(REPO),
        plan,
        workDir: join(dir, name)
      })
    : {
        argv: [node.command, ...node.args],
        env: { ...process.env, ...node.env },
        cwd: REPO
      }
  const w = new WorkerConnection({ name, command, logFile: join(dir, `${name}.log`) })
  // The pid the worker reports: a reused process says the same one to the next run.
  w.request('hello', { protocol: 1, workerId: name, room: 'room1' }).then(
    (h) => spawnedPids.push(h.pid),
    () => undefined
  )
  return w
}

describe('worker processes kept across runs (WorkerPool)', () => {
  const pool = new WorkerPool(spawn)

  afterAll(async () => {
    await pool.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('gives the next run the same Node and Java processes, with the last run’s clients gone', async () => {
    const ids: [string, ClientLane][] = [
      ['producer-room1-1-remoting', 'remoting'],
      ['consumer-room1-1-remoting', 'remoting'],
      ['producer-room1-1-java', 'java'],
      ['consumer-room1-1-java', 'java']
    ]
    for (let run = 1; run <= 2; run++) {
      const fleet = new ClientFleet(pool.workers)
      // The same ids both runs: a worker still holding them would answer "already exists".
      for (const [id, lane] of ids) await fleet.create(spec(id, lane))
      expect((await fleet.states()).map((s) => s.id).sort()).toEqual(ids.map(([id]) => id).sort())
      await fleet.close()
    }
    expect(pool.spawned).toBe(2)
    expect(pool.size).toBe(2)
    expect(new Set(spawnedPids).size).toBe(2)
  })

  it('shuts every process down on close', async () => {
    await pool.close()
    expect(pool.size).toBe(0)
    for (const pid of spawnedPids) expect(() => process.kill(pid, 0)).toThrow()
  })
})
