import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import type { NodeStatus, ProgressEvent } from '../../main/services/sandbox/sandbox'
import { READY_PROBE_TOPIC } from '../../main/services/sandbox/write-probe'
import { reportSchema } from '../../common/scenario/schema'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { RemotingRpc } from '../../main/services/remoting'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { parseScenario } from '../../main/services/scenario/load-scenario'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import { expectAgreement, runLive } from '../../main/services/engine/test-parity'
import type { Headless } from './helpers/headless'
import { headless } from './helpers/headless'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { expectNothingLeft, trackHandles, type HandleTracker } from './helpers/live-handles'

/**
 * RocketMQ 5 controller mode on real 5.3.3 JVMs: one broker group with a replica in each of three
 * rooms, and a three-node controller quorum embedded in the rooms' name servers. A master kill
 * and a leader-controller kill with it on synchronous replication lose nothing (a timeline that
 * claims an election without taking a master out fails its gate: common/scenario/gates.test.ts); on
 * asynchronous replication, a master that dies while its replicas lag loses what they never got,
 * and the RPO checker counts it, which the new master's own log confirms. Both run on the one
 * sandbox: the asynchronous test switches the live replicas' acknowledgement (updateBrokerConfig;
 * 5.3.3's CommitLog reads allAckInSyncStateSet on every write) instead of booting a second one.
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
let runner: Headless
let admin: RemotingRpc
let handles: HandleTracker | undefined
const files: Record<string, string> = {}
/** What the last boot said, in order: node states and progress lines, and when Start returned. */
let booted: { states: NodeStatus[]; progress: ProgressEvent[]; startedAt: number }

async function boot(name: string): Promise<void> {
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  runner = headless(recorder, sandbox, dataDir)
  const states: NodeStatus[] = []
  const progress: ProgressEvent[] = []
  const offState = sandbox.on('node-state', (s) => states.push(s))
  const offProgress = sandbox.on('progress', (p) => progress.push(p))
  await sandbox.start(parseScenario(`name: boot\ntopology: ${files[name]}\n`).topology)
  booted = { states, progress, startedAt: Date.now() }
  offState()
  offProgress()
  await sandbox.waitForRegistration({ timeoutMs: 90_000 })
}

function scenarioOf(
  name: string,
  topo: string,
  timeline: string,
  extra = '',
  drainTimeout = '30s',
  duration = '10s'
): LoadedScenario {
  return parseScenario(
    [
      `name: ${name}`,
      `topology: ${files[topo]}`,
      // No test here counts duplicates: 1 s of late redeliveries instead of 3 s, per run.
      `workload: { duration: ${duration}, drainTimeout: ${drainTimeout}, duplicateGrace: 1s }`,
      'client: { requestTimeout: 1500ms }',
      `timeline: ${timeline}`,
      `gates: { maxLost: 0, maxRpoMessages: 0${extra} }`
    ].join('\n')
  )
}

async function run(
  name: string,
  topo: string,
  timeline: string,
  extra = '',
  drainTimeout?: string,
  duration?: string
): Promise<ScenarioReport> {
  return checked(await runner.run(scenarioOf(name, topo, timeline, extra, drainTimeout, duration)))
}

/** The scorecard on stderr (the first thing to read when an assertion fails), schema-checked. */
function checked(report: ScenarioReport): ScenarioReport {
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  return report
}

const roomOf = (id: string | null) => id?.replace(/^broker-a-/, 'room')

/** broker-a's master and SyncStateSet as the leader controller has them now. */
async function brokerAAtLeader() {
  const leader = await Promise.any(
    sandbox.controllers().map(async (c) => {
      const m = await admin.getControllerMetadata(c.address, { timeoutMs: 3000 })
      if (!m.leaderAddress) throw new Error('no leader')
      return m.leaderAddress
    })
  )
  return (await admin.getSyncStateData(leader, ['broker-a'], { timeoutMs: 3000 }))['broker-a']!
}

/** broker-a's master (node id) as the leader controller names it now. */
async function currentMaster(): Promise<string> {
  const info = await brokerAAtLeader()
  const master = ['broker-a-1', 'broker-a-2', 'broker-a-3'].find(
    (id) => sandbox.node(id).address === info.masterAddress
  )
  if (!master) throw new Error(`no replica of broker-a at the master address ${info.masterAddress}`)
  return master
}

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
  handles = trackHandles()
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
  // Nothing the runs or the sandbox opened outlives stop(): a CLI would linger on it (issue 21).
  if (handles) await expectNothingLeft(handles, 'since the sandbox was created')
}, 60_000)

describe('controller mode across three rooms (synchronous replication)', () => {
  it('Start reports broker-a ready only once its master acknowledged a write with every replica in sync', async () => {
    const replicas = ['broker-a-1', 'broker-a-2', 'broker-a-3']
    // Each replica's JVM came up electing, and went up only with the group.
    for (const id of replicas) {
      const seen = booted.states.filter((s) => s.nodeId === id).map((s) => s.state)
      expect(seen.indexOf('electing'), id).toBeGreaterThan(seen.indexOf('starting'))
      expect(seen.at(-1), id).toBe('up')
      expect(seen.indexOf('up'), id).toBe(seen.length - 1)
      const node = sandbox.node(id)
      expect(node.readyInMs, id).toBeGreaterThan(0)
      expect(node.detail, id).toMatch(
        /^broker-a ready in \d+\.\d s: master broker-a-\d acknowledged a write/
      )
    }
    // The tracker said so before Start returned, naming the master and the whole set.
    const ready = booted.progress.find((p) => /^broker-a ready in/.test(p.message))!
    expect(ready.message).toContain('with broker-a-1, broker-a-2, broker-a-3 in its SyncStateSet')
    expect(ready.at).toBeLessThanOrEqual(booted.startedAt)
    // The system under test agrees: the leader names that master with the whole SyncStateSet,
    // the master holds the probe write, and takes a write at once.
    const info = await brokerAAtLeader()
    const byAddress = new Map(replicas.map((id) => [sandbox.node(id).address, id]))
    expect(info.inSyncReplicas.map((r) => byAddress.get(r.brokerAddress)).sort()).toEqual(replicas)
    expect(ready.message).toContain(`master ${byAddress.get(info.masterAddress!)} acknowledged`)
    const probeOffset = await admin.getMaxOffset(
      info.masterAddress!,
      { brokerName: 'broker-a', topic: READY_PROBE_TOPIC, queueId: 0 },
      { timeoutMs: 3000 }
    )
    expect(probeOffset).toBeGreaterThan(0)
    const sent = await admin.sendMessageV2(
      info.masterAddress!,
      {
        brokerName: 'broker-a',
        producerGroup: 'it-ready-check',
        topic: READY_PROBE_TOPIC,
        queueId: 0,
        body: 'ready?'
      },
      { timeoutMs: 3000 }
    )
    expect(sent.status).toBe('SEND_OK')
  }, 60_000)

  it('master kill: a replica in another room becomes master everywhere, clients follow, nothing lost; the live driver agrees', async () => {
    const loaded = scenarioOf(
      'it-master-kill',
      'it-controller-sync',
      '[{ at: 4s, action: kill, target: master of group broker-a }]',
      ', elections: [{ group: broker-a, toOtherRoom: true, within: 5s }]'
    )
    const r = checked(await runner.run(loaded))
    const election = r.controller!.elections.find((e) => e.group === 'broker-a')!
    expect(election).toMatchObject({ from: 'broker-a-1', fromRoom: 'room1' })
    expect(election.toRoom).not.toBe('room1')
    expect(r.controller!.takeovers).toEqual([
      expect.objectContaining({
        group: 'broker-a',
        fault: 'kill',
        master: 'broker-a-1',
        masterRoom: 'room1',
        to: election.to,
        toRoom: election.toRoom,
        reason: null
      })
    ])
    const gate = r.gates.find((g) => g.name.startsWith('broker-a: a new master'))!
    expect(gate).toMatchObject({ passed: true, limit: 'another room, <= 5 s' })
    // The restore brought broker-a-1 back as a replica, and the drain began once its JVM answered
    // (electing or syncing), not 20-30 s later when its group took it back in sync.
    const restored = reader
      .events(r.runId, { kinds: ['node-state'] })
      .filter((e) => e.data.nodeId === 'broker-a-1')
      .map((e) => e.data.state as string)
    const back = restored.slice(restored.lastIndexOf('starting'))
    expect(back[0]).toBe('starting')
    expect(['electing', 'syncing']).toContain(back[1])
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
    // The same kill as the operator's action on a live run: both runs read the master they hit
    // before the kill, whichever replica it is by then, and agree on everything else.
    const live = checked(await runLive(runner.deps, loaded))
    expectAgreement(runner.deps, r, live, { roles: true })
    // The live run's setup waited until the group took broker-a-1 back: up, not still syncing.
    expect(live.notes.filter((n) => n.startsWith('still not ready'))).toEqual([])
    expect(live.controller!.takeovers.map((t) => t.master)).toEqual([live.faults[0]!.nodes[0]])
  }, 420_000)

  it('leader controller and master together: a new leader, then a new master; nothing lost', async () => {
    // The surviving controllers notice their leader gone after ~6 s (DLedger: 3 missed 2 s
    // heartbeats, not configurable through ControllerConfig in 5.3.3), vote for ~1-3 s, and the new
    // leader elects a master on its next inactive-master scan (2 s in the sandbox) once a replica
    // heartbeats to it: ~11 s of no master (10.8 s here on 2026-12-04). The run lasts 15 s past the
    // kill so the election lands while the killed master is still down; with 7 s it came only
    // from the restore, and once the restarted old master was elected again.
    const r = await run(
      'it-leader-and-master-kill',
      'it-controller-sync',
      '[{ at: 3s, action: kill, target: [leader controller, master of group broker-a] }]',
      '',
      undefined,
      '18s'
    )
    const killed = r.faults[0]!.nodes
    expect(killed).toHaveLength(2)
    const oldMaster = killed.find((n) => n.startsWith('broker-a-'))!
    const election = r.controller!.elections.find((e) => e.from === oldMaster)
    expect(election, 'broker-a got a new master after its leader died with it').toBeDefined()
    expect(election!.to).not.toBe(oldMaster)
    expect(roomOf(election!.to)).not.toBe(roomOf(oldMaster))
    // Within the workload, before any restore brought a killed node back.
    expect(election!.atMs).toBeLessThan(18_000)
    // The fault read the leader before it acted: the controller it killed was the leader then,
    // and the other two elected one of themselves.
    const leaders = reader.events(r.runId, { kinds: ['controller-leader-changed'] })
    const first = leaders[0]!.data.to as string
    expect(killed).toContain(first)
    const next = leaders.slice(1).find((e) => e.data.to !== null)
    expect(next, 'a new leader was elected').toBeDefined()
    expect(killed).not.toContain(next!.data.to)
    expect(r.controller!.leaderChanges).toBeGreaterThanOrEqual(1)
    expect(r.totals.lost).toBe(0)
    // RocketMQ 5.3.3 sometimes loses acknowledged messages here though the SyncStateSet held every
    // replica at the fault (2026-12-02: 4 acknowledged before the kill; 2026-12-03: 1 acknowledged
    // in the 45 ms between the leader controller's kill and the master's). Whatever it does, the
    // report must say so and name the master that acknowledged them: that is what is tested.
    const rpo = r.controller!.rpo.lostWithOldMaster
    const gate = r.gates.find((g) => g.name.includes('(RPO)'))!
    expect(gate).toMatchObject({ passed: rpo === 0, actual: rpo, limit: 0 })
    expect(r.passed).toBe(rpo === 0)
    const lostBy = r.controller!.groups.find((g) => g.group === 'broker-a')!.lostBy
    expect(lostBy.reduce((n, m) => n + m.messages, 0)).toBe(rpo)
    for (const m of lostBy) expect(m.master).toBe(oldMaster)
    if (rpo > 0) console.log(`leader and master kill: RPO ${rpo} (${JSON.stringify(lostBy)})`)
  }, 240_000)
})

describe('controller mode with asynchronous replication', () => {
  it('a master that dies while its replicas lag loses acknowledged messages; the RPO checker counts them', async () => {
    // The running replicas take the async topology's acknowledgement (allAckInSyncStateSet is all
    // that differs), as `mqadmin updateBrokerConfig` sets it: 5.3.3's CommitLog reads it on every
    // write, so no second boot. Last in the file: the broker persists it, a restart keeps it.
    const replicas = ['broker-a-1', 'broker-a-2', 'broker-a-3']
    await Promise.all(
      replicas.map((id) =>
        admin.updateBrokerConfig(
          sandbox.node(id).address!,
          { allAckInSyncStateSet: false },
          { timeoutMs: 3000 }
        )
      )
    )
    // The test lags the replicas on purpose: they must be in the SyncStateSet when it starts
    // (after the leader-and-master kill a replica can be out of it for a while; a run on a short
    // set has no replica to elect and counts nothing).
    const whole = Date.now() + 60_000
    for (;;) {
      const info = await brokerAAtLeader().catch(() => null)
      if (info && info.inSyncReplicas.length === replicas.length) break
      if (Date.now() > whole)
        throw new Error(`broker-a's SyncStateSet is short: ${JSON.stringify(info)}`)
      await new Promise((r) => setTimeout(r, 500))
    }
    // The sync tests before this one moved the master; the other two are the ones left behind.
    const master = await currentMaster()
    const lagging = replicas.filter((id) => id !== master).join(', ')
    const r = await run(
      'it-async-rpo',
      'it-controller-async',
      `[{ at: 3s, action: pause, target: [${lagging}] }, ` +
        '{ at: 6s, action: kill, target: master of group broker-a }, ' +
        `{ at: 6.5s, action: resume, target: [${lagging}] }]`,
      '',
      // The lost messages never come: the drain would wait its whole timeout for them.
      '12s'
    )
    expect(r.faults.find((f) => f.action === 'kill')!.nodes).toEqual([master])
    const rpo = r.controller!.rpo
    // About 3 s of the old master's writes never reached the replica that took over.
    expect(rpo.lostWithOldMaster).toBeGreaterThan(0)
    expect(rpo.unreplicatedAtFault).toBeGreaterThan(0)
    expect(rpo.unreplicatedAtFault).toBeLessThanOrEqual(rpo.lostWithOldMaster)
    expect(rpo.neverConsumed).toBeLessThanOrEqual(r.totals.lost)
    const gate = r.gates.find((g) => g.name.includes('(RPO)'))!
    expect(gate).toMatchObject({ passed: false, actual: rpo.lostWithOldMaster, limit: 0 })
    // Split-brain attribution: every lost message was acknowledged by the killed master, in its
    // room, under the epoch it was master in (it was never master again in this run).
    const killed = r.controller!.elections.find((e) => e.from !== null)!
    const lostBy = r.controller!.groups.find((g) => g.group === 'broker-a')!.lostBy
    expect(lostBy.reduce((n, m) => n + m.messages, 0)).toBe(rpo.lostWithOldMaster)
    expect(lostBy[0]).toMatchObject({ master: killed.from, room: killed.fromRoom })
    expect(lostBy[0]!.epoch).toBeLessThan(killed.epoch)
    // The system under test agrees: at the counted messages' offsets the new master holds other
    // messages, or none at all.
    const election = r.controller!.elections.find((e) => e.from === master)!
    const successor = sandbox.node(election.to!).address!
    const lost = new Set(r.controller!.groups[0]!.lostKeys)
    const sends = reader.ackedSendsTo(r.runId, ['broker-a']).filter((s) => lost.has(s.key))
    expect(sends.length).toBe(lost.size)
    for (const s of sends) {
      const pulled = await admin.pullMessage(
        successor,
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
