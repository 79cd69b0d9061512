import type { NodeStatus } from '../../common/contract'
import { listNodes } from '../../common/topology'
import type { Topology } from '../../common/topology'
import { loadTopology } from '../services/documents/documents'
import { composeServices } from '../services/engine/compose'
import { createTopologyTopics } from '../services/engine/run/setup'
import { RemotingRpc } from '../services/remoting'
import { clusterRows } from './cluster-commands'
import type { Sandbox, SandboxStatus } from '../services/sandbox'

type Out = { write(s: string): unknown }

function nodeTable(nodes: NodeStatus[], out: Out): void {
  const rows = nodes.map((n) => [n.nodeId, n.kind, n.room, n.address ?? '-', n.state])
  const head = ['id', 'kind', 'room', 'address', 'state']
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  for (const r of [head, ...rows])
    out.write(
      r
        .map((v, i) => v.padEnd(width[i]!))
        .join('  ')
        .trimEnd() + '\n'
    )
}

function attachProgress(sandbox: Sandbox, out: Out, quiet: boolean): void {
  if (quiet) return
  sandbox.on('progress', (p) =>
    out.write(`  ${p.nodeId ? p.nodeId.padEnd(12) : 'sandbox'.padEnd(12)} ${p.message}\n`)
  )
  sandbox.on('node-state', (s) => {
    if (s.state === 'up' || s.state === 'failed' || s.state === 'attached') {
      out.write(`  ${s.nodeId.padEnd(12)} ${s.state}${s.address ? ` at ${s.address}` : ''}\n`)
    }
  })
}

/** `drstudio sandbox up <topology>`: boots it, prints the nodes and stays up until Ctrl-C. */
export async function runSandboxUp(file: string, out: Out = process.stdout): Promise<number> {
  const topology = loadTopology(file)
  const services = composeServices()
  const { sandbox } = services
  attachProgress(sandbox, out, false)
  const t0 = Date.now()
  out.write(`booting ${topology.name} (${listNodes(topology).length} nodes)…\n`)
  const status = await sandbox.start(topology)
  // A cluster for the user's own applications: the topology's topics, routed everywhere.
  const admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  try {
    const topics = await createTopologyTopics({
      topology,
      cluster: sandbox,
      admin,
      clock: services.clock,
      signal: new AbortController().signal,
      readyTimeoutMs: 90_000
    })
    if (topics.length) out.write(`  topics ${topics.join(', ')} created and routed\n`)
  } finally {
    admin.close()
  }
  out.write(
    `\nall nodes ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (run folder ${status.runDir})\n\n`
  )
  nodeTable(status.nodes, out)
  out.write('\nCtrl-C stops everything.\n')
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  out.write('stopping…\n')
  // Thrown away like the app's Stop: killed at once, not shut down one JVM at a time (15-20 s).
  await services.close({ force: true })
  out.write('stopped\n')
  return 0
}

export interface CheckResult {
  topology: string
  passed: boolean
  bootMs: number
  registrationMs: number | null
  checks: { name: string; passed: boolean; detail: string }[]
  nodes: NodeStatus[]
}

type Listed = { address: string; zone?: string | null }

/**
 * What a name server's cluster listing gets wrong: brokers it misses, and brokers under another
 * room's zone. It keeps one zone per broker name, so a group with replicas in several rooms
 * (controller mode) is listed under whichever of its rooms registered it.
 */
export function zoneProblems(
  brokers: ReturnType<typeof listNodes>,
  rows: readonly Listed[],
  addressOf: (id: string) => string | undefined
): string[] {
  const problems: string[] = []
  for (const b of brokers) {
    if (b.kind !== 'broker') continue
    const address = addressOf(b.id)
    const row = rows.find((r) => r.address === address)
    const rooms = [
      ...new Set(
        brokers.flatMap((o) =>
          o.kind === 'broker' && o.spec.brokerName === b.spec.brokerName ? [o.room] : []
        )
      )
    ]
    if (!row) problems.push(`${b.id} (${address}) missing`)
    else if (!rooms.includes(row.zone ?? ''))
      problems.push(`${b.id} zone ${row.zone}, expected ${rooms.join(' or ')}`)
  }
  return problems
}

/** What every name server and management node should list, checked against the live cluster. */
export async function verifyCluster(
  topology: Topology,
  status: SandboxStatus
): Promise<CheckResult['checks']> {
  const checks: CheckResult['checks'] = []
  const byId = new Map(status.nodes.map((n) => [n.nodeId, n]))
  const nodes = listNodes(topology)
  const brokers = nodes.filter((n) => n.kind === 'broker')
  const nameServers = nodes.filter((n) => n.kind === 'nameserver')
  const client = new RemotingRpc()
  try {
    for (const ns of nameServers) {
      const addr = byId.get(ns.id)?.address
      if (!addr) {
        checks.push({
          name: `${ns.id} lists every broker`,
          passed: false,
          detail: 'name server has no address'
        })
        continue
      }
      try {
        const rows = clusterRows(await client.getBrokerClusterInfo(addr))
        const problems = zoneProblems(brokers, rows, (id) => byId.get(id)?.address)
        checks.push({
          name: `${ns.id} lists every broker with its room`,
          passed: problems.length === 0,
          detail: problems.length ? problems.join('; ') : `${brokers.length} brokers, zones match`
        })
      } catch (err) {
        checks.push({
          name: `${ns.id} lists every broker with its room`,
          passed: false,
          detail: (err as Error).message
        })
      }
    }
  } finally {
    client.close()
  }
  for (const m of nodes.filter((n) => n.kind === 'management')) {
    const addr = byId.get(m.id)?.address
    try {
      const res = await fetch(`http://${addr}/v1/nameservers`, {
        signal: AbortSignal.timeout(3000)
      })
      const body = (await res.json()) as {
        nameServers: { id: string; room: string; available: boolean }[]
      }
      const problems = nameServers
        .filter(
          (ns) => !body.nameServers.some((x) => x.id === ns.id && x.room === ns.room && x.available)
        )
        .map((ns) => `${ns.id} not listed as available`)
      checks.push({
        name: `${m.id} lists every name server`,
        passed: problems.length === 0,
        detail: problems.length
          ? problems.join('; ')
          : `${nameServers.length} name servers available`
      })
    } catch (err) {
      checks.push({
        name: `${m.id} lists every name server`,
        passed: false,
        detail: `http://${addr}: ${(err as Error).message}`
      })
    }
  }
  return checks
}

/**
 * `drstudio sandbox check <topology>`: boot, verify registration and discovery, tear down. With
 * `writeClassArchives` (setup) one JVM of each kind writes its class-data archive as it shuts down,
 * so the teardown is a shutdown rather than a kill.
 */
export async function runSandboxCheck(
  file: string,
  opts: { json?: boolean; writeClassArchives?: boolean },
  out: Out = process.stdout
): Promise<number> {
  const topology = loadTopology(file)
  const write = !!opts.writeClassArchives
  // A JVM writes its archive only if it exits on its own: give a proxy's slow shutdown the time.
  const services = composeServices(
    write ? { sandbox: { classArchives: { write }, stopGraceMs: 60_000 } } : {}
  )
  const { sandbox } = services
  attachProgress(sandbox, out, !!opts.json)
  const t0 = Date.now()
  let result: CheckResult
  try {
    const status = await sandbox.start(topology)
    const bootMs = Date.now() - t0
    const registration = await sandbox.waitForRegistration({ timeoutMs: 90_000 })
    const checks = await verifyCluster(topology, sandbox.status())
    result = {
      topology: topology.name,
      passed: checks.every((c) => c.passed),
      bootMs,
      registrationMs: registration.allMs,
      checks,
      nodes: status.nodes
    }
  } finally {
    await services.close({ force: !write })
  }
  if (opts.json) {
    out.write(JSON.stringify(result, null, 2) + '\n')
  } else {
    out.write(
      `\n${topology.name}: nodes ready in ${(result.bootMs / 1000).toFixed(1)} s; ` +
        `all brokers registered on all name servers ${result.registrationMs === null ? 'never (timeout)' : `${(result.registrationMs / 1000).toFixed(1)} s later`}\n`
    )
    for (const c of result.checks)
      out.write(`${c.passed ? 'ok  ' : 'FAIL'}  ${c.name}: ${c.detail}\n`)
    out.write(result.passed ? 'sandbox check passed\n' : 'sandbox check FAILED\n')
  }
  return result.passed ? 0 : 1
}
