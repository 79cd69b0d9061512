import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { topologySchema } from '../../common/topology/schema'
import { exportTopology } from '../../main/services/export/export'
import {
  fillPlaceholders,
  findPlaceholders,
  listPlaceholderSpecs
} from '../../main/services/export/placeholders'
import { runManagementNode, type RunningManagementNode } from '../../main/services/management'
import { RemotingRpc, type ClusterInfo } from '../../main/services/remoting'
import {
  allocatePorts,
  brokerCommand,
  findJava,
  locateRocketmqLib,
  namesrvCommand,
  nodeProcessSpawner,
  scrubEnv,
  tcpPortProbe,
  type CommandSpec,
  type JvmContext,
  type SpawnedProcess
} from '../../main/services/sandbox'
import { openDatabase, Recorder } from '../../main/services/ledger'
import type { ClusterPort } from '../../main/services/engine/run/cluster-port'
import { loadScenarioFile } from '../../main/services/scenario'
import { runScenario } from '../../main/services/engine/scenario-driver'
import { systemClock } from '../../main/services/clients/room-aware/ports'
import { sourceWorkers } from '../../main/services/workers/worker-launcher'
import { assertJars, makeRunDir, removeRunDir, waitForPort } from './helpers/jvm'

const REPO = resolve(import.meta.dirname, '../..')

interface Started {
  id: string
  proc: SpawnedProcess
  logFile: string
}

/** Boots real RocketMQ from the exported broker.conf / namesrv.properties (placeholders filled with loopback). */
describe('export boots on real RocketMQ 5.3.3', () => {
  const topology = topologySchema.parse(
    JSON.parse(readFileSync(join(REPO, 'resources/topologies/two-rooms.json'), 'utf8'))
  )
  let root: string
  let out: string
  let ctx: JvmContext
  const jvms: Started[] = []
  const mgmt: RunningManagementNode[] = []
  const ports = new Map<string, number>()
  let client: RemotingRpc

  /** Reads an exported file with every placeholder replaced, and writes it back (the operator's step). */
  function fillExported(rel: string, values: Record<string, string>): string {
    const path = join(out, rel)
    const text = fillPlaceholders(readFileSync(path, 'utf8'), values, {
      json: rel.endsWith('.json')
    })
    expect(findPlaceholders(text), `${rel} still has placeholders`).toEqual([])
    writeFileSync(path, text)
    return path
  }

  async function startJvm(
    id: string,
    spec: CommandSpec,
    ready: RegExp,
    port: number
  ): Promise<void> {
    const logFile = join(spec.cwd, 'stdout.log')
    const proc = nodeProcessSpawner.spawn({
      command: spec.command,
      args: spec.args,
      env: { ...scrubEnv(process.env), ...spec.env },
      cwd: spec.cwd,
      logFile
    })
    jvms.push({ id, proc, logFile })
    let exited = false
    void proc.exited.then(() => (exited = true))
    const deadline = Date.now() + 120_000
    for (;;) {
      let log = ''
      try {
        log = readFileSync(logFile, 'utf8')
      } catch {
        // not created yet
      }
      if (ready.test(log)) break
      if (exited || Date.now() > deadline) {
        throw new Error(
          `${id} did not boot (${exited ? 'exited' : 'timeout'}):\n${log.slice(-3000)}`
        )
      }
      await new Promise((r) => setTimeout(r, 200))
    }
    await waitForPort(port, deadline)
  }

  beforeAll(async () => {
    assertJars()
    ctx = {
      java: findJava().path,
      lib: locateRocketmqLib({ repoRoot: REPO, env: {} }).dir
    }
    root = await makeRunDir('export')
    out = join(root, 'export')
    exportTopology(topology, { outDir: out })

    const specs = listPlaceholderSpecs(topology)
    const nodes = [...new Set(specs.map((s) => s.nodeId))]
    const kinds = new Map(specs.map((s) => [s.nodeId, s.kind]))
    const assigned = await allocatePorts(
      nodes.map((nodeId) => ({ nodeId, kind: kinds.get(nodeId)! })),
      tcpPortProbe
    )
    for (const [id, a] of assigned) ports.set(id, a.port)
    const values: Record<string, string> = {}
    for (const s of specs) {
      values[s.token] =
        s.field === 'host'
          ? '127.0.0.1'
          : s.field === 'store-root'
            ? join(root, 'stores', s.nodeId)
            : String(ports.get(s.nodeId))
    }

    // 1. management nodes, from the exported management.json
    for (const id of ['mgmt-1', 'mgmt-2']) {
      const room = id === 'mgmt-1' ? 'room1' : 'room2'
      const file = fillExported(`${room}/${id}/management.json`, values)
      mgmt.push(await runManagementNode(file, { signals: false, log: () => {} }))
    }
    // 2. name servers, from the exported namesrv.properties
    await Promise.all(
      [
        ['room1', 'ns-1'],
        ['room2', 'ns-2']
      ].map(async ([room, id]) => {
        const file = fillExported(`${room}/${id}/namesrv.properties`, values)
        const dir = join(root, 'nodes', id!)
        mkdirSync(dir, { recursive: true })
        await startJvm(
          id!,
          namesrvCommand(ctx, dir, file),
          /The Name Server boot success/,
          ports.get(id!)!
        )
      })
    )
    // 3. brokers, from the exported broker.conf, with the zone start-broker.sh exports
    await Promise.all(
      [
        ['room1', 'broker-1'],
        ['room2', 'broker-2']
      ].map(async ([room, id]) => {
        const file = fillExported(`${room}/${id}/broker.conf`, values)
        const script = readFileSync(join(out, `${room}/${id}/start-broker.sh`), 'utf8')
        const zone = /^export ROCKETMQ_ZONE=(\S+)$/m.exec(script)![1]!
        const dir = join(root, 'nodes', id!)
        mkdirSync(dir, { recursive: true })
        await startJvm(
          id!,
          brokerCommand(ctx, dir, file, zone),
          /The broker\[.*\] boot success/,
          ports.get(id!)!
        )
      })
    )
    client = new RemotingRpc()
  })

  afterAll(async () => {
    client?.close()
    for (const j of jvms) nodeProcessSpawner.signal(j.proc.pid, 'SIGKILL')
    await Promise.all(jvms.map((j) => j.proc.exited))
    await Promise.all(mgmt.map((m) => m.stop()))
    if (root) await removeRunDir(root)
  })

  it('management nodes serve both rooms name servers at /rocketmq/nsaddr', async () => {
    const deadline = Date.now() + 20_000
    for (;;) {
      const body = await (await fetch(`${mgmt[0]!.url}/rocketmq/nsaddr`)).text()
      const listed = body.trim().split(';').sort()
      const want = [`127.0.0.1:${ports.get('ns-1')}`, `127.0.0.1:${ports.get('ns-2')}`].sort()
      if (JSON.stringify(listed) === JSON.stringify(want)) break
      if (Date.now() > deadline) expect(listed).toEqual(want)
      await new Promise((r) => setTimeout(r, 250))
    }
  })

  it('every broker registers with every name server, tagged with its room', async () => {
    const expected = {
      'broker-a': {
        zoneName: 'room1',
        cluster: 'DrCluster',
        addr: `127.0.0.1:${ports.get('broker-1')}`
      },
      'broker-b': {
        zoneName: 'room2',
        cluster: 'DrCluster',
        addr: `127.0.0.1:${ports.get('broker-2')}`
      }
    }
    for (const ns of ['ns-1', 'ns-2']) {
      const address = `127.0.0.1:${ports.get(ns)}`
      // brokers fetch the list from the management node 10 s after start and register every 10 s
      const deadline = Date.now() + 90_000
      let info: ClusterInfo
      for (;;) {
        info = await client.getBrokerClusterInfo(address)
        if (Object.keys(info.brokerAddrTable).length >= 2 || Date.now() > deadline) break
        await new Promise((r) => setTimeout(r, 1000))
      }
      for (const [name, want] of Object.entries(expected)) {
        const b = info.brokerAddrTable[name]
        expect(b, `${name} on ${ns}`).toBeDefined()
        expect(b!.zoneName, `${name} zone on ${ns}`).toBe(want.zoneName)
        expect(b!.cluster).toBe(want.cluster)
        expect(b!.brokerAddrs['0']).toBe(want.addr)
      }
      expect(info.clusterAddrTable.DrCluster?.sort()).toEqual(['broker-a', 'broker-b'])
    }
  })

  it('runs healthy.yaml against the cluster booted from the export: nothing lost, traffic stays in its room', async () => {
    const node = (nodeId: string, kind: string, room: string, address: string) => ({
      nodeId,
      kind,
      room,
      state: 'up',
      address
    })
    const mgmtAddress = (m: RunningManagementNode) => new URL(m.url).host
    // The exported cluster is not ours to break: healthy.yaml has no faults, so act() is never needed.
    const cluster: ClusterPort = {
      status: () => ({
        nodes: [
          node('ns-1', 'nameserver', 'room1', `127.0.0.1:${ports.get('ns-1')}`),
          node('ns-2', 'nameserver', 'room2', `127.0.0.1:${ports.get('ns-2')}`),
          node('broker-1', 'broker', 'room1', `127.0.0.1:${ports.get('broker-1')}`),
          node('broker-2', 'broker', 'room2', `127.0.0.1:${ports.get('broker-2')}`),
          node('mgmt-1', 'management', 'room1', mgmtAddress(mgmt[0]!)),
          node('mgmt-2', 'management', 'room2', mgmtAddress(mgmt[1]!))
        ]
      }),
      act: async (nodeId) => {
        throw new Error(`${nodeId} belongs to the exported cluster; this test does not break it`)
      }
    }
    const recorder = new Recorder(openDatabase(join(root, 'ledger.db')))
    try {
      const loaded = loadScenarioFile(join(REPO, 'resources/scenarios/healthy.yaml'))
      // The exported configs boot and carry traffic: 6 s of it says so.
      loaded.scenario.workload.duration = 6_000
      const report = await runScenario(
        { recorder, cluster, workers: sourceWorkers(root), clock: systemClock },
        loaded
      )
      expect(report.totals.lost).toBe(0)
      expect(report.totals.acked).toBeGreaterThan(0)
      expect(report.gates.filter((g) => !g.passed)).toEqual([])
      expect(report.passed).toBe(true)
    } finally {
      recorder.close()
    }
  })
})
