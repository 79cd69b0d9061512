import { mkdtempSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LoadedScenario } from '../../common/scenario/run-plan'
import type { ScenarioReport } from '../../common/scenario/schema'
import { reportSchema } from '../../common/scenario/schema'
import { listNodes } from '../../common/topology/model'
import { pause, systemClock } from '../../main/services/clients/room-aware/ports'
import { runScenario } from '../../main/services/engine/scenario-driver'
import { k8sName } from '../../main/services/export/kubernetes/names'
import { kubernetesObjectFiles } from '../../main/services/export/kubernetes/render-kubernetes'
import { LedgerReader } from '../../main/services/ledger/ledger-reader'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { ClusterDeployment } from '../../main/services/kubernetes/cluster-deployment'
import { ApiServerStandIn } from '../../main/services/kubernetes/fixtures/api-server-stand-in'
import type { KubeObject } from '../../main/services/kubernetes/kube-api'
import {
  KILL_COMMAND,
  PAUSE_COMMAND,
  RESUME_COMMAND
} from '../../main/services/kubernetes/kube-cluster'
import { KubeHttp } from '../../main/services/kubernetes/kube-http'
import { openKubeRun } from '../../main/services/kubernetes/kube-run'
import { engineIdentity } from '../../main/services/kubernetes/run-labels'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { loadScenarioFile } from '../../main/services/scenario/load-scenario'
import { formatScorecard } from '../../main/services/scenario/scorecard'
import { roomWorkerEntry } from '../../main/services/workers/worker-launcher'

/**
 * A scenario run on "Kubernetes" through the API-server STAND-IN, bridged to REAL parts: every
 * server pod is a REAL RocketMQ 5.3.3 JVM of a local sandbox (exec's SIGKILL/SIGSTOP/SIGCONT and
 * the scale subresource act on it; port-forward reaches its port), and every room-worker pod is a
 * REAL room worker process reached over attach. It proves the run's requests, the engine's tunnel,
 * the worker protocol over attach, the ledger and the report end to end. It does NOT prove a real
 * scheduler, kubelet, pod network or cluster DNS (the stand-in's pod network is this machine's
 * loopback, so node addresses are the sandbox's), nor Chaos Mesh's injection (no network fault here).
 */

const ROOT = resolve(import.meta.dirname, '../..')
const SCENARIOS = join(ROOT, 'resources', 'scenarios')
// Both scenarios run on two-rooms: one sandbox serves the file.
const { topology } = loadScenarioFile(join(SCENARIOS, 'room1-brokers-down.yaml'))
const { namespace, files } = kubernetesObjectFiles(topology)

let dataDir: string
let recorder: Recorder
let sandbox: Sandbox
let standIn: ApiServerStandIn | undefined

/** Topology node ids by their Kubernetes names (the `drstudio.io/node` label). */
const serverIds = new Map(
  listNodes(topology)
    .filter((n) => n.kind !== 'producer' && n.kind !== 'consumer')
    .map((n) => [k8sName(n.id), n.id])
)
/** The server node a pod stands for, by its label (a management node's pod has a hashed name). */
const nodeOfPod = (pod: string): string | undefined => {
  const found = standIn?.all('Pod').find((p) => p.metadata.name === pod)
  return serverIds.get(found?.metadata.labels?.['drstudio.io/node'] ?? '')
}
const serverOfPod = (pod: string): string => {
  const id = nodeOfPod(pod)
  if (!id) throw new Error(`pod ${pod} stands for no server node`)
  return id
}
const addressOf = (id: string): string | undefined =>
  sandbox.status().nodes.find((n) => n.nodeId === id)?.address ?? undefined

/** Resolves when the sandbox reports the node up (a start's boot lines and port). */
function upAgain(id: string): Promise<void> {
  return new Promise((resolveUp) => {
    const off = sandbox.on('node-state', (s) => {
      if (s.nodeId === id && s.state === 'up') {
        off()
        resolveUp()
      }
    })
    if (sandbox.status().nodes.find((n) => n.nodeId === id)?.state === 'up') {
      off()
      resolveUp()
    }
  })
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-kubernetes-run-'))
  recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  sandbox = new Sandbox({ dataDir, repoRoot: ROOT })
  await sandbox.start(topology)
}, 240_000)

afterAll(async () => {
  await standIn?.stop()
  await sandbox?.stop({ force: true })
  recorder?.close()
  if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

/** What a run through the stand-in saw: its report, the exec commands and the API requests. */
interface StandInRun {
  report: ScenarioReport
  execs: string[]
  requests: string[]
  brokerStates: string[]
}

/**
 * Deploys the scenario's topology into a fresh stand-in bridged to the sandbox, runs the scenario
 * through `openKubeRun` and tears the run down: the same path `scenario run --on kubernetes` takes.
 */
async function runOnStandIn(loaded: LoadedScenario, runId: string): Promise<StandInRun> {
  const execs: string[] = []
  const stopping: Promise<void>[] = []
  const worker = roomWorkerEntry(ROOT, { preferBuilt: false })
  standIn = new ApiServerStandIn({
    token: 'tok',
    zones: topology.rooms.map((r) => r.id),
    autoReady: true,
    chaos: { injectMs: 50, recoverMs: 50 },
    attach: () => ({
      argv: [worker.command, ...worker.args],
      env: { ...process.env, ...worker.env }
    }),
    exec: async (pod, command) => {
      const id = serverOfPod(pod.name)
      execs.push(`${id}: ${command.join(' ')}`)
      const signal = command.join(' ')
      if (signal === KILL_COMMAND.join(' ')) await sandbox.act(id, 'kill')
      else if (signal === PAUSE_COMMAND.join(' ')) await sandbox.act(id, 'pause')
      else if (signal === RESUME_COMMAND.join(' ')) await sandbox.act(id, 'resume')
      else return { code: 127, stderr: `${command[0]}: not found` }
      return { code: 0 }
    },
    forward: (pod) => addressOf(serverOfPod(pod.name)) ?? null,
    kubelet: {
      start: async (pod) => {
        const id = serverOfPod(pod.name)
        const up = upAgain(id)
        await sandbox.act(id, 'start')
        await up
      },
      // A pod that goes is its process stopping (the teardown's too); the suite's next run
      // starts the sandbox's nodes again below.
      stop: (pod) => {
        const id = nodeOfPod(pod.name)
        const state = id && sandbox.status().nodes.find((n) => n.nodeId === id)?.state
        if (!id || !state || !['up', 'paused', 'starting'].includes(state)) {
          return Promise.resolve()
        }
        const stopped = sandbox.act(id, 'stop').then(() => undefined)
        stopping.push(stopped)
        return stopped
      }
    }
  })
  const endpoint = { server: await standIn.start(), token: 'tok' }
  const engine = engineIdentity(hostname(), process.pid)
  const deployment = new ClusterDeployment({
    api: new KubeHttp(endpoint),
    engine,
    isEngineAlive: () => true,
    now: () => Date.now(),
    sleep: pause
  })
  let report: ScenarioReport
  try {
    await deployment.deploy({
      runId,
      namespace,
      objects: files.flatMap((f) => f.objects as KubeObject[]),
      readyTimeoutMs: 10_000,
      onProgress: () => {}
    })
    const kube = await openKubeRun({
      endpoint,
      namespace,
      runId,
      topology,
      engine,
      recorder,
      clock: systemClock,
      logDir: dataDir,
      faultTimeoutMs: 10_000,
      addressOf
    })
    try {
      report = await runScenario(kube.deps, loaded, {
        onOpen: (run) =>
          run.on('progress', (p) => process.stderr.write(`[${p.phase}] ${p.message}\n`))
      })
    } finally {
      await kube.close()
    }
  } finally {
    await deployment.teardown({ runId, namespace, timeoutMs: 10_000, onProgress: () => {} })
  }
  process.stderr.write(formatScorecard(report))
  expect(reportSchema.safeParse(report).success).toBe(true)
  // Nothing of the run is left in the stand-in.
  expect(standIn.all('Pod').filter((p) => p.metadata.namespace === namespace)).toEqual([])
  const requests = standIn.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)
  await standIn.stop()
  standIn = undefined
  // The teardown stopped what the pods stood for: bring the sandbox back for the next run.
  await Promise.allSettled(stopping)
  await Promise.all(
    sandbox
      .status()
      .nodes.filter((x) => x.state !== 'up')
      .map(async (n) => {
        const up = upAgain(n.nodeId)
        await sandbox.act(n.nodeId, 'start')
        await up
      })
  )
  const brokerStates = new LedgerReader(recorder.db)
    .events(report.runId, { kinds: ['node-state'] })
    .map((e) => e.data as { nodeId: string; state: string })
    .filter((d) => d.nodeId === 'broker-1')
    .map((d) => d.state)
  return { report, execs, requests, brokerStates }
}

const failedOverToRoom2 = (report: ScenarioReport): boolean =>
  report.failovers.some(
    (f) => f.kind === 'broker' && f.fromRoom === 'room1' && f.toRoom === 'room2'
  )

describe('a scenario run on Kubernetes (API-server stand-in bridged to real JVMs and room workers)', () => {
  it('room1-brokers-down: the kill is a SIGKILL through exec and a scale to zero, the restart a scale back; room 1 fails over to room 2, nothing lost, all in the one ledger', async () => {
    const { report, execs, requests, brokerStates } = await runOnStandIn(
      loadScenarioFile(join(SCENARIOS, 'room1-brokers-down.yaml')),
      'rk1'
    )
    // The verdict of a local run: failover through room 2, nothing lost.
    expect(report.totals.lost).toBe(0)
    expect(report.totals.acked).toBeGreaterThan(0)
    expect(report.faults.map((f) => [f.action, f.ok])).toEqual([
      ['kill', true],
      ['restart', true]
    ])
    expect(failedOverToRoom2(report)).toBe(true)
    expect(report.passed).toBe(true)
    // The kill reached the JVM as SIGKILL through exec, then the scale; the restart scaled back.
    expect(execs).toEqual(['broker-1: ' + KILL_COMMAND.join(' ')])
    const scale = `PATCH /apis/apps/v1/namespaces/${namespace}/statefulsets/broker-1/scale`
    expect(requests.filter((r) => r === scale)).toHaveLength(2)
    // The workers over attach (one per room), the engine's calls through port-forward.
    expect(requests.filter((r) => r.startsWith('ATTACH '))).toHaveLength(2)
    expect(requests.filter((r) => r.startsWith('PORTFORWARD ')).length).toBeGreaterThan(0)
    // The one ledger: the node states the run saw come from the pods.
    expect(brokerStates).toEqual(expect.arrayContaining(['up', 'killed', 'starting']))
    expect(brokerStates.at(-1)).toBe('up')
  }, 240_000)

  it('room1-broker-paused: pause and resume are SIGSTOP and SIGCONT through exec; detected by timeout, nothing lost', async () => {
    const loaded = loadScenarioFile(join(SCENARIOS, 'room1-broker-paused.yaml'))
    loaded.scenario.workload.duration = 15_000
    const { report, execs, brokerStates } = await runOnStandIn(loaded, 'rk2')
    expect(report.totals.lost).toBe(0)
    expect(report.faults.map((f) => [f.action, f.ok])).toEqual([
      ['pause', true],
      ['resume', true]
    ])
    expect(execs).toEqual([
      'broker-1: ' + PAUSE_COMMAND.join(' '),
      'broker-1: ' + RESUME_COMMAND.join(' ')
    ])
    expect(
      report.failovers.some(
        (f) => f.fromRoom === 'room1' && f.toRoom === 'room2' && f.reason === 'timeout'
      )
    ).toBe(true)
    expect(brokerStates).toEqual(['up', 'paused', 'up'])
  }, 240_000)
})
