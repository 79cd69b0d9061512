// `npx tsx bench/sandbox.ts`: boots the default topologies in the real sandbox, median of N runs:
// time to all nodes ready (start() resolved, topics created), time until every name server lists every
// broker, and peak total RSS summed over every child process tree (/proc VmRSS, sampled every 200 ms).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { loadNow, writeResultMarkdown } from './results-file'
import { join, resolve } from 'node:path'
import { topologySchema } from '../common/topology/schema'
import type { NodeStatus } from '../main/services/sandbox'
import { linuxProcFs, Sandbox, treeRssKb } from '../main/services/sandbox'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const TOPOLOGIES = ['two-rooms', 'three-rooms']
const REPO = resolve(import.meta.dirname, '..')

interface Sample {
  bootMs: number
  registeredMs: number | null
  peakRssMiB: number
  peakRssByKindMiB: Record<string, number>
  nodes: number
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

async function once(name: string): Promise<Sample> {
  const raw = JSON.parse(readFileSync(join(REPO, 'resources/topologies', `${name}.json`), 'utf8'))
  const topology = topologySchema.parse(raw)
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-sandbox-'))
  const sandbox = new Sandbox({ dataDir, repoRoot: REPO })
  const kinds = new Map<string, string>()
  sandbox.on('node-state', (s: NodeStatus) => kinds.set(s.nodeId, s.kind))
  let peak = 0
  let peakByKind: Record<string, number> = {}
  const sample = (): void => {
    let total = 0
    const byKind: Record<string, number> = {}
    for (const { nodeId, pid } of sandbox.processes()) {
      const kb = treeRssKb(linuxProcFs, pid)
      total += kb
      const kind = kinds.get(nodeId) ?? '?'
      byKind[kind] = (byKind[kind] ?? 0) + kb
    }
    if (total > peak) {
      peak = total
      peakByKind = byKind
    }
  }
  const timer = setInterval(sample, 200)
  const t0 = performance.now()
  try {
    await sandbox.start(topology)
    const bootMs = performance.now() - t0
    const report = await sandbox.waitForRegistration()
    sample()
    const registeredMs = report.allMs === null ? null : report.allMs
    return {
      bootMs,
      registeredMs,
      peakRssMiB: peak / 1024,
      peakRssByKindMiB: Object.fromEntries(
        Object.entries(peakByKind).map(([k, v]) => [k, Math.round(v / 1024)])
      ),
      nodes: sandbox.status().nodes.length
    }
  } finally {
    clearInterval(timer)
    await sandbox.stop({ force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const loadBefore = loadavg()
const results: Record<string, { samples: Sample[]; median: Omit<Sample, 'peakRssByKindMiB'> }> = {}
for (const name of TOPOLOGIES) {
  const samples: Sample[] = []
  for (let i = 0; i < RUNS; i++) {
    const s = await once(name)
    console.error(
      `${name} run ${i + 1}/${RUNS}: ready ${(s.bootMs / 1000).toFixed(1)} s, registered +${
        s.registeredMs === null ? '?' : (s.registeredMs / 1000).toFixed(1)
      } s, peak RSS ${s.peakRssMiB.toFixed(0)} MiB`
    )
    samples.push(s)
  }
  const regs = samples.map((s) => s.registeredMs).filter((v): v is number => v !== null)
  results[name] = {
    samples,
    median: {
      bootMs: median(samples.map((s) => s.bootMs)),
      registeredMs: regs.length === samples.length ? median(regs) : null,
      peakRssMiB: median(samples.map((s) => s.peakRssMiB)),
      nodes: samples[0]!.nodes
    }
  }
}

const cpuCount = cpus().length
const out = {
  runs: RUNS,
  cpus: cpuCount,
  loadAvg: { before: loadBefore, after: loadavg() },
  at: new Date().toISOString(),
  results
}
mkdirSync(join(REPO, 'bench/results'), { recursive: true })
writeFileSync(join(REPO, 'bench/results/sandbox.json'), JSON.stringify(out, null, 2) + '\n')

const rows = TOPOLOGIES.map((name) => {
  const r = results[name]!
  const m = r.median
  const kinds = r.samples[0]!.peakRssByKindMiB
  const split = Object.entries(kinds)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  return `| ${name} | ${m.nodes} | ${(m.bootMs / 1000).toFixed(1)} s | ${
    m.registeredMs === null ? 'timeout' : `+${(m.registeredMs / 1000).toFixed(1)} s`
  } | ${m.peakRssMiB.toFixed(0)} MiB | ${split} |`
})
const table = `| topology | server nodes | boot to all ready (median of ${RUNS}) | all brokers on all name servers, after brokers up | peak total RSS | RSS split at peak, MiB (run 1) |
|---|---|---|---|---|---|
${rows.join('\n')}

${cpuCount} CPUs, load average ${loadBefore[0]!.toFixed(1)} before / ${out.loadAvg.after[0]!.toFixed(1)} after (other work on the machine inflates boot times); samples in bench/results/sandbox.json`
console.log(table)
writeResultMarkdown(
  'sandbox',
  'Sandbox boot',
  'npm run bench:sandbox',
  { before: loadBefore.map((x) => Math.round(x * 100) / 100), after: loadNow() },
  table
)
