import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import type { Topology } from '../../common/topology'
import { isAttached, listNodes, parseTopologyText, validateTopology } from '../../common/topology'
import { runDiscoverCommand } from '../../main/cli/discover-command'
import type { ConnectRequest, ObservedChange } from '../../main/services/attach'
import {
  AttachedProber,
  connectToCluster,
  probeTargets,
  remotingDiscoveryPort,
  remotingProbePort
} from '../../main/services/attach'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { RemotingRpc, RequestCode, ResponseCode } from '../../main/services/remoting'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { parseScenario } from '../../main/services/scenario/load-scenario'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { buildCli, runCli } from './helpers/cli'
import type { HandCluster } from './helpers/hand-cluster'
import {
  createTopic,
  eventually,
  HAND_CLUSTER_NAME,
  operatorScripts,
  startHandCluster,
  waitForRegistration
} from './helpers/hand-cluster'
import { headless } from './helpers/headless'
import {
  assertJars,
  freePort,
  makeRunDir,
  removeRunDir,
  runningJvmPids,
  stopAllJvms
} from './helpers/jvm'
import { trackHandles } from './helpers/live-handles'

// Issue 11: DR Studio reads, runs on and reports on a cluster it did not start. The test is the
// operator: it starts two name servers and two brokers by hand (plain config files, a static
// namesrvAddr, no sandbox), once with ROCKETMQ_ZONE per room and once without, and creates the
// topics itself. Each cluster boots once: the read-only discovery cases first, then the runs (which
// break broker-a through the topology's own `actions.kill` and out of band), then the probes, which
// kill broker-b.

const PAYMENTS = 'payments'
const ORDERS_R1 = 'orders-r1'
const MISSING = 'payments-r1'

const rpc = new RemotingRpc()
let root: string
let dataDir: string
let recorder: Recorder
const handStarted: number[] = []

beforeAll(async () => {
  assertJars()
  // The CLI case runs the bundle built from this checkout.
  buildCli()
  root = await makeRunDir('attach')
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-attach-run-data-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
})

afterAll(async () => {
  killHandStarted()
  rpc.close()
  recorder?.close()
  await stopAllJvms()
  expect(runningJvmPids()).toEqual([])
  if (root) await removeRunDir(root)
  // The ledger's folder too, unless kept to read after a failure.
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
})

/** JVMs started again by the operator's own start script are not children of the test. */
function killHandStarted(): void {
  for (const pid of handStarted.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

function nsMap(cluster: HandCluster): string {
  return `${cluster.nameServers[0].address}: room1\n${cluster.nameServers[1].address}: room2\n`
}

function connect(cluster: HandCluster, extra: Partial<ConnectRequest>, deadNs?: string) {
  return connectToCluster(
    {
      namesrv: [...cluster.nameServers.map((n) => n.address), ...(deadNs ? [deadNs] : [])],
      clients: false,
      createTopic: false,
      timeoutMs: 2000,
      ...extra
    },
    remotingDiscoveryPort(rpc)
  )
}

/** The rooms as `room → [kind id host:port]`, for one readable assertion. */
function layout(t: Topology): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const n of listNodes(t)) {
    const spec = n.spec as { host?: string; port?: number }
    ;(out[n.room] ??= []).push(`${n.kind} ${n.id} ${spec.host}:${spec.port}`)
  }
  return out
}

function expectedLayout(c: HandCluster): Record<string, string[]> {
  return {
    room1: [
      `nameserver ns-1 ${c.nameServers[0].address}`,
      `broker broker-a ${c.brokers[0].address}`
    ],
    room2: [
      `nameserver ns-2 ${c.nameServers[1].address}`,
      `broker broker-b ${c.brokers[1].address}`
    ]
  }
}

async function expectProberSeesKill(cluster: HandCluster, topology: Topology): Promise<void> {
  const probeRpc = new RemotingRpc({ connectTimeoutMs: 1000 })
  const prober = new AttachedProber({
    targets: probeTargets(topology),
    port: remotingProbePort(probeRpc),
    intervalMs: 60_000,
    timeoutMs: 2000,
    slowMs: 1500
  })
  const changes: ObservedChange[] = []
  prober.on('change', (c) => changes.push(c))
  try {
    await prober.probeOnce()
    expect(prober.states()).toEqual({
      'ns-1': 'up',
      'broker-a': 'up',
      'ns-2': 'up',
      'broker-b': 'up'
    })
    await cluster.brokers[1].stop('SIGKILL')
    await prober.probeOnce()
    expect(changes.slice(4)).toEqual([
      expect.objectContaining({
        nodeId: 'broker-b',
        from: 'up',
        to: 'down',
        address: cluster.brokers[1].address,
        reason: expect.stringMatching(/closed|cannot connect|ECONNREFUSED|ECONNRESET/)
      })
    ])
    expect(prober.states()['broker-a']).toBe('up')
  } finally {
    prober.stop()
    probeRpc.close()
  }
}

async function discover(cluster: HandCluster, zones: boolean): Promise<Topology> {
  const ns = cluster.nameServers.map((n) => n.address)
  const map = [
    `${ns[0]}: room1`,
    `${ns[1]}: room2`,
    ...(zones ? [] : ['broker-a: room1', 'broker-b: room2'])
  ].join('\n')
  const started = performance.now()
  const result = await connectToCluster(
    {
      namesrv: ns,
      mode: zones ? 'zone' : 'map',
      roomMap: { text: map, source: 'test' },
      topic: 'payments',
      clients: true,
      createTopic: false,
      timeoutMs: 3000
    },
    remotingDiscoveryPort(rpc)
  )
  expect(result.problems).toEqual([])
  process.stderr.write(
    `discovery of the ${zones ? 'zoned' : 'map-placed'} cluster took ${Math.round(performance.now() - started)} ms\n`
  )
  const topology = result.topology!
  const rooms = Object.fromEntries(
    topology.rooms.map((r) => [
      r.id,
      listNodes({ ...topology, rooms: [r] })
        .map((n) => n.id)
        .sort()
    ])
  )
  expect(rooms).toEqual({
    room1: ['broker-a', 'consumer-room1', 'ns-1', 'producer-room1'],
    room2: ['broker-b', 'consumer-room2', 'ns-2', 'producer-room2']
  })
  return topology
}

/** Adds the operator's kill and start commands to broker-a and writes the topology file. */
function withActions(topology: Topology, scripts: { pidFile: string; start: string }): string {
  const t = structuredClone(topology)
  const broker = t.rooms.flatMap((r) => r.brokers).find((b) => b.brokerName === 'broker-a')!
  broker.actions = { kill: `kill -KILL $(cat ${scripts.pidFile})`, start: `sh ${scripts.start}` }
  const file = join(root, `${t.name}-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify(t, null, 2))
  return file
}

async function run(
  topologyFile: string,
  body: string,
  during?: (progress: string) => void
): Promise<ScenarioReport> {
  const loaded = parseScenario(`name: attached\ntopology: ${topologyFile}\n${body}`)
  // No run here gates or asserts duplicates: 1 s of late redeliveries instead of 3 s.
  loaded.scenario.workload.duplicateGrace = 1000
  const handles = trackHandles()
  const sandbox = new Sandbox({ dataDir, attached: { allowActions: true } })
  try {
    await sandbox.start(loaded.topology)
    try {
      const report = await headless(recorder, sandbox, dataDir).run(loaded, {
        onOpen: (r) => r.on('progress', (p) => during?.(p.message))
      })
      process.stderr.write(formatScorecard(report) + '\n')
      return report
    } finally {
      await sandbox.stop()
    }
  } finally {
    // The operator's nodes outlive the run: a socket or timer left to them keeps a CLI alive.
    const left = await handles.alive()
    handles.stop()
    expect(left, 'opened by the run or its sandbox and still alive after stop()').toEqual([])
  }
}

const ROOM1_PRODUCER = 'producer-room1'
const rtoOf = (r: ScenarioReport): (number | null)[] =>
  r.clients.find((c) => c.id === ROOM1_PRODUCER)!.rtoMs

describe('an operator’s two-room cluster with zones', () => {
  let cluster: HandCluster
  let dead: string
  let topologyFile: string
  let scripts: { pidFile: string; start: string }

  beforeAll(async () => {
    cluster = await startHandCluster(join(root, 'zones'), { zones: true })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, PAYMENTS, ['broker-a', 'broker-b'])
    await createTopic(cluster, rpc, ORDERS_R1, ['broker-a'], 8)
    dead = `127.0.0.1:${await freePort()}`
    scripts = operatorScripts(cluster.brokers[0])
    topologyFile = withActions(await discover(cluster, true), scripts)
  }, 180_000)

  // Frees the second cluster's memory on this small machine.
  afterAll(async () => {
    killHandStarted()
    await Promise.all([...cluster.brokers, ...cluster.nameServers].map((j) => j.stop()))
  })

  describe('attach reads it', () => {
    it('puts brokers in rooms by zone and lists the name servers it cannot place, with the fix', async () => {
      const r = await connect(cluster, {})
      expect(r.ok).toBe(false)
      expect(r.placement.mode).toBe('zone')
      expect(
        Object.values(r.placement.brokers)
          .map((p) => p.by)
          .sort()
      ).toEqual(['zone room1', 'zone room2'])
      // Both rooms run on 127.0.0.1, so the host says nothing about a name server's room.
      expect(r.problems).toEqual(
        cluster.nameServers.map((ns) => ({
          code: 'namesrv-unplaced',
          subject: `name server ${ns.address}`,
          message: 'its host 127.0.0.1 also runs brokers of room1 and room2',
          fix: `add "${ns.address}: <room>" to the rooms map (--rooms-map FILE), or use --namesrv-rooms-by-host REGEX`
        }))
      )
    })

    it('discovers rooms, brokers, addresses and topics; says which name server did not answer', async () => {
      const r = await connect(
        cluster,
        { mode: 'zone', roomMap: { text: nsMap(cluster), source: 'rooms.yaml' } },
        dead
      )
      expect(r.problems).toEqual([])
      const t = r.topology!
      expect(validateTopology(t).ok).toBe(true)
      expect(layout(t)).toEqual(expectedLayout(cluster))
      expect(listNodes(t).every(isAttached)).toBe(true)
      expect(t.rooms[0]?.brokers[0]).toMatchObject({
        cluster: HAND_CLUSTER_NAME,
        brokerName: 'broker-a',
        role: 'master',
        brokerId: 0
      })
      expect(t.settings.namesrvDiscovery).toBe('static')
      expect(t.source).toMatchObject({
        kind: 'discovered',
        rooms: 'zone',
        createTopic: false,
        namesrv: cluster.namesrvAddr
      })
      expect(t.topics).toEqual([
        { name: ORDERS_R1, queues: 8 },
        { name: PAYMENTS, queues: 4 }
      ])
      expect(r.discovery.systemTopicsSkipped).toBeGreaterThan(0)
      expect(r.discovery.brokerSets.map((s) => [s.brokerName, s.zone])).toEqual([
        ['broker-a', 'room1'],
        ['broker-b', 'room2']
      ])
      const answers = r.discovery.nameServers.map((n) => [n.address, n.ok])
      expect(answers).toEqual([
        [cluster.nameServers[0].address, true],
        [cluster.nameServers[1].address, true],
        [dead, false]
      ])
      expect(r.discovery.nameServers[2]?.error).toMatch(/cannot connect to 127\.0\.0\.1:\d+/)
      expect(r.warnings.some((w) => w.startsWith(`name server ${dead} did not answer`))).toBe(true)
    })

    it('checks the run topic: fine, missing in room2, or missing with both fixes', async () => {
      const ok = await connect(cluster, {
        mode: 'zone',
        roomMap: { text: nsMap(cluster), source: 'm' },
        topic: PAYMENTS
      })
      expect(ok.topic).toMatchObject({
        ok: true,
        rooms: [
          { room: 'room1', writeQueues: 4 },
          { room: 'room2', writeQueues: 4 }
        ]
      })

      const partial = await connect(cluster, {
        mode: 'zone',
        roomMap: { text: nsMap(cluster), source: 'm' },
        topic: ORDERS_R1
      })
      expect(partial.topic).toMatchObject({
        ok: false,
        missing: false,
        roomsWithoutQueues: ['room2'],
        fixes: [
          `create its queues yourself: mqadmin updateTopic -n '${cluster.namesrvAddr}' -b ${cluster.brokers[1].address} -t ${ORDERS_R1} -r 8 -w 8`,
          'or let DR Studio create it on this cluster: pass --create-topic'
        ]
      })

      const missing = await connect(cluster, {
        mode: 'zone',
        roomMap: { text: nsMap(cluster), source: 'm' },
        topic: MISSING,
        clients: true
      })
      expect(missing.ok).toBe(true)
      expect(missing.topic).toEqual({
        ok: false,
        topic: MISSING,
        missing: true,
        roomsWithoutQueues: ['room1', 'room2'],
        rooms: [
          { room: 'room1', brokers: [], writeQueues: 0 },
          { room: 'room2', brokers: [], writeQueues: 0 }
        ],
        message: `topic "${MISSING}" does not exist on this cluster (name servers ${cluster.namesrvAddr})`,
        fixes: [
          `create it yourself: mqadmin updateTopic -n '${cluster.namesrvAddr}' -c ${HAND_CLUSTER_NAME} -t ${MISSING} -r 4 -w 4`,
          'or let DR Studio create it on this cluster: pass --create-topic'
        ],
        notes: []
      })
      // DR Studio only read: the missing topic is still missing.
      await expect(
        rpc.getRouteInfoByTopic(cluster.nameServers[0].address, MISSING)
      ).rejects.toMatchObject({ responseCode: 17 })
    })

    it('drstudio discover writes the topology file', async () => {
      const map = join(root, 'zoned-rooms.yaml')
      writeFileSync(map, nsMap(cluster))
      const out = join(root, 'zoned-topology.json')
      let stderr = ''
      const code = await runDiscoverCommand(
        {
          namesrv: cluster.namesrvAddr,
          rooms: 'zone',
          roomsMap: map,
          out,
          topic: PAYMENTS,
          clients: true
        },
        { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) } }
      )
      expect(code).toBe(0)
      expect(stderr).toContain('topic check: topic "payments": room1 4 queue(s), room2 4 queue(s)')
      const parsed = parseTopologyText(readFileSync(out, 'utf8'))
      expect(parsed.ok).toBe(true)
      if (!parsed.ok) return
      expect(layout(parsed.topology)).toEqual({
        room1: [
          ...expectedLayout(cluster).room1!,
          'producer producer-room1 undefined:undefined',
          'consumer consumer-room1 undefined:undefined'
        ],
        room2: [
          ...expectedLayout(cluster).room2!,
          'producer producer-room2 undefined:undefined',
          'consumer consumer-room2 undefined:undefined'
        ]
      })
    })
  })

  describe('runs on it', () => {
    it("keeps each room's traffic at home on the existing topic, with a group of its own, and fails room 1 over to room 2 when the topology's kill command takes broker-a down", async () => {
      const report = await run(
        topologyFile,
        `workload: { duration: 16s, rate: 20 }
timeline:
  - { at: 5s, action: kill, target: broker-a }
  - { at: 10s, action: start, target: broker-a }
gates:
  maxLost: 0
  minLocalShare: 0.99
  sendsAfterFault: [{ fromRoom: room1, viaRoom: room2 }]
  failovers: [{ kind: broker, fromRoom: room1, toRoom: room2 }]`
      )
      // Healthy before the kill: the local-share gate reads the sends due before the first fault.
      expect(report.topic).toBe('payments')
      expect(report.consumerGroup).toMatch(/^drstudio-run-\d+$/)
      expect(report.totals.acked).toBeGreaterThan(200)
      handStarted.push(Number(readFileSync(scripts.pidFile, 'utf8')))
      expect(report.faults.map((f) => `${f.action} ${f.nodes.join(',')} ${f.ok}`)).toEqual(
        expect.arrayContaining(['kill broker-a true', 'start broker-a true'])
      )
      expect(report.totals.lost).toBe(0)
      expect(report.gates.filter((g) => !g.passed)).toEqual([])
      process.stderr.write(
        `RTO of ${ROOM1_PRODUCER}, kill through actions.kill: ${JSON.stringify(rtoOf(report))}\n`
      )
    })

    it('counts an out-of-band kill it only observes as a fault, and fails over just the same', async () => {
      let killed = false
      const report = await run(
        topologyFile,
        `workload: { duration: 16s, rate: 20 }\ngates:\n  maxLost: 0\n  failovers: [{ kind: broker, fromRoom: room1, toRoom: room2 }]`,
        (m) => {
          if (killed || !m.includes('producers for')) return
          killed = true
          // The operator (not DR Studio) kills broker-a 5 s into the workload and starts it 5 s later.
          setTimeout(
            () => process.kill(Number(readFileSync(scripts.pidFile, 'utf8')), 'SIGKILL'),
            5000
          )
          setTimeout(() => {
            void import('node:child_process').then(({ execFileSync }) => {
              execFileSync('sh', [scripts.start])
              handStarted.push(Number(readFileSync(scripts.pidFile, 'utf8')))
            })
          }, 10_000)
        }
      )
      expect(report.faults.map((f) => `${f.action} ${f.nodes.join(',')}`)).toEqual(
        expect.arrayContaining(['observed-down broker-a', 'observed-up broker-a'])
      )
      expect(report.totals.lost).toBe(0)
      expect(report.gates.filter((g) => !g.passed)).toEqual([])
      process.stderr.write(
        `RTO of ${ROOM1_PRODUCER}, out-of-band kill: ${JSON.stringify(rtoOf(report))}\n`
      )
    })

    it('says so before anything starts when the topic is missing, and creates nothing', async () => {
      const t = JSON.parse(readFileSync(topologyFile, 'utf8')) as Topology
      for (const r of t.rooms)
        for (const c of [...r.producers, ...r.consumers]) c.topic = 'payments-missing'
      t.topics = []
      const file = join(root, 'missing-topic.json')
      writeFileSync(file, JSON.stringify(t))
      const err = await run(file, 'workload: { duration: 5s }').catch((e: Error) => e)
      expect(String(err)).toContain('topic "payments-missing" does not exist on this cluster')
      expect(String(err)).toMatch(
        /fix 1: create it yourself: mqadmin updateTopic -n \S+ -c HandCluster -t payments-missing/
      )
      expect(String(err)).toContain(
        'fix 2: or let DR Studio create it on this cluster: pass --create-topic'
      )
      await expect(
        rpc.getRouteInfoByTopic(cluster.nameServers[0].address, 'payments-missing', {
          timeoutMs: 2000
        })
      ).rejects.toThrow()
    })

    // Last of the runs: broker-a stays down after it (the operator starts it again below).
    it('drstudio scenario run exits within 2 s of its verdict after an out-of-band kill (issue 21)', async () => {
      const scenario = join(root, 'cli-out-of-band.yaml')
      writeFileSync(
        scenario,
        `name: cli-out-of-band
topology: ${topologyFile}
workload: { duration: 10s, rate: 20, drainTimeout: 5s, duplicateGrace: 1s }
gates:
  failovers: [{ kind: broker, fromRoom: room1, toRoom: room2 }]
`
      )
      // A second scenario whose topology is missing: no run can be made of it (exit 2 for the lot).
      const broken = join(root, 'cli-no-topology.yaml')
      writeFileSync(broken, 'name: cli-no-topology\ntopology: no-such-topology.json\n')
      const reportDir = join(root, 'cli-reports')
      const junitFile = join(root, 'cli-junit.xml')
      let killed = false
      const cli = await runCli(
        ['scenario', 'run', scenario, broken, '--report', reportDir, '--junit', junitFile],
        {
          env: { DRSTUDIO_DATA_DIR: join(root, 'cli-data') },
          onStderr: (line) => {
            if (killed || !line.includes('producers for')) return
            killed = true
            // The operator kills broker-a 3 s into the workload and leaves it down.
            setTimeout(
              () => process.kill(Number(readFileSync(scripts.pidFile, 'utf8')), 'SIGKILL'),
              3000
            )
          }
        }
      )
      expect(cli.lingered, `sockets the CLI still held:\n${cli.lingered?.join('\n')}`).toBeNull()
      const report = JSON.parse(
        readFileSync(join(reportDir, 'cli-out-of-band.json'), 'utf8')
      ) as ScenarioReport
      process.stderr.write(`${cli.stdout}\nverdict → exit: ${cli.verdictToExitMs} ms\n`)
      // The verdict the run deserves: the kill observed, room 1 failed over to room 2, and the
      // scorecard and exit code say what the gates say (a message broker-a acknowledged just before
      // it died stays unconsumed, so the default maxLost gate may fail, and then so must the run).
      expect(report.faults.map((f) => `${f.action} ${f.nodes.join(',')}`)).toContain(
        'observed-down broker-a'
      )
      expect(report.gates.find((g) => g.name.startsWith('broker failovers'))?.passed).toBe(true)
      expect(report.passed).toBe(report.gates.every((g) => g.passed))
      expect(cli.stdout).toContain(`(run ${report.runId}): ${report.passed ? 'PASSED' : 'FAILED'}`)
      // The run that could not be made outranks the verdict of the one that was (exit codes: README).
      expect(cli.code).toBe(2)
      expect(cli.verdictToExitMs).toBeLessThan(2000)
      // JUnit for CI, valid against the schema: a suite per scenario, a testcase per gate.
      const lint = spawnSync(
        'xmllint',
        [
          '--noout',
          '--schema',
          join(resolve(import.meta.dirname, '../..'), 'resources/junit/junit.xsd'),
          junitFile
        ],
        { encoding: 'utf8' }
      )
      expect(lint.status, `${lint.stdout}${lint.stderr}`).toBe(0)
      const xml = readFileSync(junitFile, 'utf8')
      for (const g of report.gates) expect(xml).toContain(`<testcase name="${g.name}"`)
      expect(xml).toContain(`<property name="runId" value="${report.runId}"/>`)
      expect(xml).toMatch(/<testsuite name="cli-no-topology" tests="1" failures="0" errors="1"/)
    })
  })

  describe('attach probes it, broker-a back', () => {
    // The operator starts broker-a again with its own script; the probes need every node up.
    beforeAll(async () => {
      execFileSync('sh', [scripts.start])
      handStarted.push(Number(readFileSync(scripts.pidFile, 'utf8')))
      await eventually(async () => {
        const res = await rpc.invoke(
          cluster.brokers[0].address,
          { code: RequestCode.GET_BROKER_RUNTIME_INFO },
          2000
        )
        expect(res.code).toBe(ResponseCode.SUCCESS)
      })
      await waitForRegistration(cluster, rpc)
    }, 180_000)

    it('re-probes every attached node with real requests and sees a broker killed out of band', async () => {
      const r = await connect(cluster, {
        mode: 'zone',
        roomMap: { text: nsMap(cluster), source: 'm' }
      })
      await expectProberSeesKill(cluster, r.topology!)
    })
  })
})

describe('an operator’s two-room cluster without zones, rooms from a map', () => {
  let cluster: HandCluster

  beforeAll(async () => {
    cluster = await startHandCluster(join(root, 'nozones'), { zones: false })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, PAYMENTS, ['broker-a', 'broker-b'])
  }, 180_000)

  afterAll(async () => {
    await Promise.all([...cluster.brokers, ...cluster.nameServers].map((j) => j.stop()))
  })

  it('by zone lists every broker without a zone with the fixes, and builds nothing', async () => {
    const r = await connect(cluster, {})
    expect(r.topology).toBeNull()
    const brokers = r.problems.filter((p) => p.code === 'broker-unplaced')
    expect(brokers.map((p) => [p.subject, p.message])).toEqual([
      [
        `broker-a brokerId 0 (${cluster.brokers[0].address})`,
        'broker-a has no zone (it was started without ROCKETMQ_ZONE)'
      ],
      [
        `broker-b brokerId 0 (${cluster.brokers[1].address})`,
        'broker-b has no zone (it was started without ROCKETMQ_ZONE)'
      ]
    ])
    expect(brokers[0]?.fix).toBe(
      `restart it with ROCKETMQ_ZONE=<room>, or add "broker-a: <room>" (or "${cluster.brokers[0].address}: <room>" for this node only) ` +
        'to the rooms map (--rooms-map FILE), or use --rooms-by-name REGEX'
    )
  })

  it('places every node from a YAML room map (broker names and name-server addresses)', async () => {
    const map = `room1:\n  - broker-a\n  - "${cluster.nameServers[0].address}"\nroom2:\n  - broker-b\n  - "${cluster.nameServers[1].address}"\n`
    const r = await connect(cluster, {
      roomMap: { text: map, source: 'rooms.yaml' },
      topic: PAYMENTS
    })
    expect(r.problems).toEqual([])
    expect(r.placement.mode).toBe('map')
    expect(r.discovery.brokerSets.map((s) => s.zone)).toEqual([undefined, undefined])
    const t = r.topology!
    expect(layout(t)).toEqual(expectedLayout(cluster))
    expect(t.source?.rooms).toBe('map')
    expect(r.topic?.ok).toBe(true)
  })

  it('places brokers by a name pattern', async () => {
    const r = await connect(cluster, {
      brokerPattern: '^broker-(a|b)$',
      roomMap: { text: nsMap(cluster).replace(/room1/, 'a').replace(/room2/, 'b'), source: 'm' }
    })
    expect(r.problems).toEqual([])
    expect(r.topology?.rooms.map((x) => [x.id, x.brokers.map((b) => b.id)])).toEqual([
      ['a', ['broker-a']],
      ['b', ['broker-b']]
    ])
  })

  it('discovers the rooms from the map and keeps traffic in each room', async () => {
    const file = join(root, 'nozones.json')
    writeFileSync(file, JSON.stringify(await discover(cluster, false)))
    const report = await run(
      file,
      'workload: { duration: 8s, rate: 20 }\ngates: { maxLost: 0, minLocalShare: 0.99 }'
    )
    expect(report.totals.lost).toBe(0)
    expect(report.passed).toBe(true)
  })

  // Last: it kills broker-b.
  it('re-probes every attached node and sees a broker killed out of band', async () => {
    const map = `room1: [broker-a, "${cluster.nameServers[0].address}"]\nroom2: [broker-b, "${cluster.nameServers[1].address}"]\n`
    const r = await connect(cluster, { roomMap: { text: map, source: 'm' } })
    await expectProberSeesKill(cluster, r.topology!)
  })
})
