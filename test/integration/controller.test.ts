import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { RemotingRpc } from '../../main/services/remoting'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { parseScenario } from '../../main/services/scenario/load-scenario'
import { ScenarioRunner } from '../../main/services/scenario/scenario-runner'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { sandboxPlace, sourceWorkers } from '../../main/services/workers/worker-launcher'

/**
 * RocketMQ 5 controller mode on real 5.3.3 JVMs: one broker group with a replica in each of three
 * rooms, and a three-node controller quorum embedded in the rooms' name servers. A master kill, a
 * leader-controller kill and both at once on synchronous replication lose nothing; on
 * asynchronous replication, a master that dies while its replicas lag loses what they never got,
 * and the RPO checker counts it, which the new master's own log confirms.
 */
const ROOT = resolve(import.meta.dirname, '../..')

function topology(name: string, allAck: boolean): unknown {
  const room = (i: number) => ({
    id: `room${i}`,
    managementNodes: [{ id: `mgmt-${i}` }],
    nameServers: [{ id: `ns-${i}`, controller: {} }],
    brokers: [
      {
        id: `broker-a-${i}`,
        cluster: 'DrCluster',
        brokerName: 'broker-a',
        role: 'replica',
        brokerId: -1,
        electionPriority: i
      }
    ],
    producers: [{ id: `producer-${i}`, topic: 'orders', group: 'orders-producer', rate: 40 }],
    consumers: [{ id: `consumer-${i}`, topic: 'orders', group: 'orders-consumer' }]
  })
  return {
    kind: 'drstudio/topology',
    version: 1,
    name,
    controllerMode: { allAckInSyncStateSet: allAck, inSyncReplicas: 1, minInSyncReplicas: 1 },
    topics: [{ name: 'orders', queues: 4 }],
    rooms: [room(1), room(2), room(3)]
  }
}

let dataDir: string
let recorder: Recorder
let reader: LedgerReader
let sandbox: Sandbox
let runner: ScenarioRunner
let admin: RemotingRpc
const files: Record<string, string> = {}

async function boot(name: string): Promise<void> {
  await sandbox?.stop({ force: true })
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  runner = new ScenarioRunner({ recorder, workers: sourceWorkers(sandboxPlace(sandbox, dataDir)) })
  runner.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
  await sandbox.start(parseScenario(`name: boot\ntopology: ${files[name]}\n`).topology)
  await sandbox.waitForRegistration({ timeoutMs: 90_000 })
}

async function run(
  name: string,
  topo: string,
  timeline: string,
  extra = ''
): Promise<ScenarioReport> {
  const loaded = parseScenario(
    [
      `name: ${name}`,
      `topology: ${files[topo]}`,
      'workload: { duration: 16s, drainTimeout: 30s }',
      'client: { requestTimeout: 1500ms }',
      `timeline: ${timeline}`,
      `gates: { maxLost: 0, maxRpoMessages: 0${extra} }`
    ].join('\n')
  )
  const report = await runner.run(loaded, sandbox)
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  return report
}

const roomOf = (id: string | null) => id?.replace(/^broker-a-/, 'room')

/** broker-a's master address as every serving name server routes it now. */
async function routedMasters(topic: string): Promise<string[]> {
  const nameServers = sandbox
    .status()
    .nodes.filter((n) => n.kind === 'nameserver' && n.state === 'up')
  return Promise.all(
    nameServers.map(async (ns) => {
      const route = await admin.getRouteInfoByTopic(ns.address!, topic, { timeoutMs: 3000 })
      return route.brokerDatas.find((b) => b.brokerName === 'broker-a')?.brokerAddrs['0'] ?? 'none'
    })
  )
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-controller-'))
  for (const [name, allAck] of [
    ['it-controller-sync', true],
    ['it-controller-async', false]
  ] as const) {
    files[name] = join(dataDir, `${name}.json`)
    writeFileSync(files[name], JSON.stringify(topology(name, allAck), null, 2))
  }
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  reader = new LedgerReader(recorder.db)
  admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  await boot('it-controller-sync')
}, 240_000)

afterAll(async () => {
  admin?.close()
  await sandbox?.stop({ force: true })
  recorder?.close()
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

describe('controller mode across three rooms (synchronous replication)', () => {
  it('master kill: a replica in another room becomes master everywhere, clients follow, nothing lost', async () => {
    const r = await run(
      'it-master-kill',
      'it-controller-sync',
      '[{ at: 4s, action: kill, target: master of group broker-a }]'
    )
    const election = r.controller!.elections.find((e) => e.group === 'broker-a')!
    expect(election).toMatchObject({ from: 'broker-a-1', fromRoom: 'room1' })
    expect(election.toRoom).not.toBe('room1')
    expect(r.totals.lost).toBe(0)
    expect(r.controller!.rpo.lostWithOldMaster).toBe(0)
    expect(r.passed).toBe(true)
    // Every name server routes broker-a to the new master (the killed one came back as a replica).
    const newMaster = sandbox.node(election.to!).address
    expect(new Set(await routedMasters(r.topic))).toEqual(new Set([newMaster]))
    // The clients followed the master to its new room at once, and said so.
    const followed = reader.events(r.runId, { kinds: ['master-followed'] })
    expect(followed.length).toBeGreaterThan(0)
    for (const e of followed)
      expect(e.data).toMatchObject({ brokerName: 'broker-a', toRoom: election.toRoom })
    const p1 = followed.find((e) => e.clientId === 'producer-1')!
    expect(p1.data).toMatchObject({ fromRoom: 'room1', sameRoom: false })
    const choices = reader
      .events(r.runId, { kinds: ['broker-choice'] })
      .filter((e) => e.clientId === 'producer-1')
    expect(choices.at(-1)!.data).toMatchObject({
      brokerName: 'broker-a',
      brokerRoom: election.toRoom
    })
  }, 240_000)

  it('leader controller kill: the other two elect a leader; nothing lost', async () => {
    const before = reader
    const r = await run(
      'it-leader-kill',
      'it-controller-sync',
      '[{ at: 4s, action: kill, target: leader controller }]'
    )
    const leaders = before.events(r.runId, { kinds: ['controller-leader-changed'] })
    const first = leaders[0]!.data.to as string
    expect(r.faults[0]!.nodes).toEqual([first])
    const next = leaders.slice(1).find((e) => e.data.to !== null)
    expect(next, 'a new leader was elected').toBeDefined()
    expect(next!.data.to).not.toBe(first)
    expect(r.controller!.leaderChanges).toBeGreaterThanOrEqual(1)
    expect(r.totals.lost).toBe(0)
    expect(r.controller!.rpo.lostWithOldMaster).toBe(0)
  }, 240_000)

  it('leader controller and master together: a new leader, then a new master; nothing lost', async () => {
    const r = await run(
      'it-leader-and-master-kill',
      'it-controller-sync',
      '[{ at: 3s, action: kill, target: [leader controller, master of group broker-a] }]'
    )
    const killed = r.faults[0]!.nodes
    expect(killed).toHaveLength(2)
    const oldMaster = killed.find((n) => n.startsWith('broker-a-'))!
    const election = r.controller!.elections.find((e) => e.from === oldMaster)
    expect(election, 'broker-a got a new master after its leader died with it').toBeDefined()
    expect(election!.to).not.toBe(oldMaster)
    expect(roomOf(election!.to)).not.toBe(roomOf(oldMaster))
    const leaders = reader.events(r.runId, { kinds: ['controller-leader-changed'] })
    expect(leaders.some((e) => e.data.to !== null && !killed.includes(e.data.to as string))).toBe(
      true
    )
    expect(r.totals.lost).toBe(0)
    expect(r.controller!.rpo.lostWithOldMaster).toBe(0)
    expect(r.passed).toBe(true)
  }, 240_000)
})

describe('controller mode with asynchronous replication', () => {
  it('a master that dies while its replicas lag loses acknowledged messages; the RPO checker counts them', async () => {
    await boot('it-controller-async')
    const r = await run(
      'it-async-rpo',
      'it-controller-async',
      '[{ at: 3s, action: pause, target: [broker-a-2, broker-a-3] }, ' +
        '{ at: 6s, action: kill, target: master of group broker-a }, ' +
        '{ at: 6.5s, action: resume, target: [broker-a-2, broker-a-3] }]'
    )
    const rpo = r.controller!.rpo
    // About 3 s of the old master's writes never reached the replica that took over.
    expect(rpo.lostWithOldMaster).toBeGreaterThan(0)
    expect(rpo.unreplicatedAtFault).toBeGreaterThan(0)
    expect(rpo.unreplicatedAtFault).toBeLessThanOrEqual(rpo.lostWithOldMaster)
    expect(rpo.neverConsumed).toBeLessThanOrEqual(r.totals.lost)
    const gate = r.gates.find((g) => g.name.includes('(RPO)'))!
    expect(gate).toMatchObject({ passed: false, actual: rpo.lostWithOldMaster, limit: 0 })
    // The system under test agrees: at the counted messages' offsets the new master holds other
    // messages, or none at all.
    const election = r.controller!.elections.find((e) => e.from === 'broker-a-1')!
    const master = sandbox.node(election.to!).address!
    const lost = new Set(r.controller!.groups[0]!.lostKeys)
    const sends = reader.ackedSendsTo(r.runId, ['broker-a']).filter((s) => lost.has(s.key))
    expect(sends.length).toBe(lost.size)
    for (const s of sends) {
      const pulled = await admin.pullMessage(
        master,
        {
          brokerName: 'broker-a',
          consumerGroup: 'it-rpo-check',
          topic: r.topic,
          queueId: s.queueId,
          queueOffset: s.queueOffset,
          maxMsgNums: 1,
          suspendTimeoutMs: 0
        },
        { timeoutMs: 3000 }
      )
      const at = pulled.messages.find((m) => m.queueOffset === s.queueOffset)
      expect(at?.msgId ?? 'none', `${s.key} at ${s.queueId}/${s.queueOffset}`).not.toBe(s.key)
    }
  }, 300_000)
})
