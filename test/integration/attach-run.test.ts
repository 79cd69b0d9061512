import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScenarioReport } from '../../common/scenario/schema'
import type { Topology } from '../../common/topology'
import { listNodes } from '../../common/topology'
import { connectToCluster, remotingDiscoveryPort } from '../../main/services/attach'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { RemotingRpc } from '../../main/services/remoting'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { parseScenario } from '../../main/services/scenario/load-scenario'
import { headless } from './helpers/headless'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import type { HandCluster } from './helpers/hand-cluster'
import {
  createTopic,
  operatorScripts,
  startHandCluster,
  waitForRegistration
} from './helpers/hand-cluster'
import { assertJars, makeRunDir, removeRunDir, stopAllJvms } from './helpers/jvm'
import { buildCli, runCli } from './helpers/cli'
import { trackHandles } from './helpers/live-handles'

// Issue 11: the room-aware client and its failover against a cluster DR Studio did not start. The
// test is the operator: it starts two name servers and two brokers by hand (plain configs, a static
// namesrvAddr), creates the topic itself, and breaks broker-a twice: once through the topology's
// own `actions.kill` command, once out of band. DR Studio must read, run and report on it.

const rpc = new RemotingRpc()
let root: string
let dataDir: string
let recorder: Recorder
const handStarted: number[] = []

beforeAll(async () => {
  assertJars()
  // The CLI case runs the bundle built from this checkout.
  buildCli()
  root = await makeRunDir('attach-run')
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-attach-run-data-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
})

afterAll(async () => {
  // JVMs started again by the operator's own start script are not children of the test.
  for (const pid of handStarted) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  rpc.close()
  recorder?.close()
  await stopAllJvms()
  if (root) await removeRunDir(root)
})

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
  let topologyFile: string
  let scripts: { pidFile: string; start: string }

  beforeAll(async () => {
    cluster = await startHandCluster(join(root, 'zones'), { zones: true })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, 'payments', ['broker-a', 'broker-b'])
    scripts = operatorScripts(cluster.brokers[0])
    topologyFile = withActions(await discover(cluster, true), scripts)
  }, 180_000)

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

  // Last of this cluster's cases: broker-a stays down after it.
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

describe('an operator’s two-room cluster without zones, rooms from a map', () => {
  it('discovers the rooms from the map and keeps traffic in each room', async () => {
    const cluster = await startHandCluster(join(root, 'nozones'), { zones: false })
    await waitForRegistration(cluster, rpc)
    await createTopic(cluster, rpc, 'payments', ['broker-a', 'broker-b'])
    const file = join(root, 'nozones.json')
    writeFileSync(file, JSON.stringify(await discover(cluster, false)))
    const report = await run(
      file,
      'workload: { duration: 8s, rate: 20 }\ngates: { maxLost: 0, minLocalShare: 0.99 }'
    )
    expect(report.totals.lost).toBe(0)
    expect(report.passed).toBe(true)
    await Promise.all([...cluster.brokers, ...cluster.nameServers].map((j) => j.stop()))
  })
})
