import type { NodeStatus } from '../../common/contract'
import { listNodes } from '../../common/topology'
import type { Topology } from '../../common/topology'
import { loadTopology } from '../services/documents/documents'
import { findAppPaths } from '../services/app-paths'
import { managementCommandFor } from '../services/engine/create-engine'
import { defaultDataDir } from '../services/ledger'
import { RemotingRpc } from '../services/remoting'
import { clusterRows } from './cluster-commands'
import type { SandboxStatus } from '../services/sandbox'
import { Sandbox } from '../services/sandbox'
import { machineSandboxOptions } from '../services/sandbox/machine-sandbox'

type Out = { write(s: string): unknown }

function newSandbox(): Sandbox {
  const paths = findAppPaths()
  return new Sandbox({
    dataDir: defaultDataDir(),
    repoRoot: paths.root,
    managementCommand: managementCommandFor(paths),
    ...machineSandboxOptions(paths.root)
  })
}

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
  const sandbox = newSandbox()
  attachProgress(sandbox, out, false)
  const t0 = Date.now()
  out.write(`booting ${topology.name} (${listNodes(topology).length} nodes)…\n`)
  const status = await sandbox.start(topology)
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
  await sandbox.stop()
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
        const problems: string[] = []
        for (const b of brokers) {
          const address = byId.get(b.id)?.address
          const row = rows.find((r) => r.address === address)
          if (!row) problems.push(`${b.id} (${address}) missing`)
          else if (row.zone !== b.room)
            problems.push(`${b.id} zone ${row.zone}, expected ${b.room}`)
        }
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

/** `drstudio sandbox check <topology>`: boot, verify registration and discovery, tear down. */
export async function runSandboxCheck(
  file: string,
  opts: { json?: boolean },
  out: Out = process.stdout
): Promise<number> {
  const topology = loadTopology(file)
  const sandbox = newSandbox()
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
    await sandbox.stop()
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
