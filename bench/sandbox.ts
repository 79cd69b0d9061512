// `npx tsx bench/sandbox.ts`: boots the default topologies in the real sandbox, median of N runs:
// time to all nodes ready (start() resolved; topics are each run's), time until every name server lists every
// broker, and peak total RSS summed over every child process tree (/proc VmRSS, sampled every 200 ms).
// Each round boots every topology three times, in rotating order so the ratios compare boots under
// the same machine load: as the sandbox does (class-data archives, server TLS off), without the
// archives, and with RocketMQ's default server TLS mode (permissive: OpenSSL and a self-signed
// context per server at boot). Both baselines are ratioed against the sandbox's own boot.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { loadNow, writeResultMarkdown } from './results-file'
import { join, resolve } from 'node:path'
import { topologySchema } from '../common/topology/schema'
import type { NodeStatus } from '../main/services/sandbox'
import { linuxProcFs, treeRssKb } from '../main/services/sandbox'
import { composeServices } from '../main/services/engine/compose'

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

type Variant = 'archives' | 'no archives' | 'TLS permissive'
const VARIANTS: Variant[] = ['archives', 'no archives', 'TLS permissive']

async function once(name: string, variant: Variant): Promise<Sample> {
  const raw = JSON.parse(readFileSync(join(REPO, 'resources/topologies', `${name}.json`), 'utf8'))
  const topology = topologySchema.parse(raw)
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-bench-sandbox-'))
  // Loopback, as the published figures were measured; the rooms' namespaces are bench:network's.
  const services = composeServices({
    dataDir,
    fromSource: true,
    machineNetwork: false,
    ...(variant === 'no archives' ? { sandbox: { classArchives: { dir: null } } } : {}),
    ...(variant === 'TLS permissive' ? { sandbox: { serverTls: 'permissive' as const } } : {})
  })
  const { sandbox } = services
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
    await services.close({ force: true })
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const loadBefore = loadavg()
interface Result {
  samples: Sample[]
  median: Omit<Sample, 'peakRssByKindMiB'>
}
const results: Record<string, Record<Variant, Result>> = {}
for (const name of TOPOLOGIES) {
  const samples: Record<Variant, Sample[]> = {
    archives: [],
    'no archives': [],
    'TLS permissive': []
  }
  for (let i = 0; i < RUNS; i++) {
    // Rotate which variant boots first, so none always follows another's teardown.
    for (const variant of [...VARIANTS.slice(i % 3), ...VARIANTS.slice(0, i % 3)]) {
      const s = await once(name, variant)
      console.error(
        `${name} (${variant}) run ${i + 1}/${RUNS}: ready ${(s.bootMs / 1000).toFixed(1)} s, registered +${
          s.registeredMs === null ? '?' : (s.registeredMs / 1000).toFixed(1)
        } s, peak RSS ${s.peakRssMiB.toFixed(0)} MiB`
      )
      samples[variant].push(s)
    }
  }
  const summarize = (xs: Sample[]): Result => {
    const regs = xs.map((s) => s.registeredMs).filter((v): v is number => v !== null)
    return {
      samples: xs,
      median: {
        bootMs: median(xs.map((s) => s.bootMs)),
        registeredMs: regs.length === xs.length ? median(regs) : null,
        peakRssMiB: median(xs.map((s) => s.peakRssMiB)),
        nodes: xs[0]!.nodes
      }
    }
  }
  results[name] = {
    archives: summarize(samples.archives),
    'no archives': summarize(samples['no archives']),
    'TLS permissive': summarize(samples['TLS permissive'])
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

/** `median [min–max]` in seconds: with N samples the range is the interval we can state. */
const spread = (xs: number[]): string =>
  `${(median(xs) / 1000).toFixed(1)} s [${(Math.min(...xs) / 1000).toFixed(1)}–${(Math.max(...xs) / 1000).toFixed(1)}]`
const rows = TOPOLOGIES.flatMap((name) =>
  VARIANTS.map((variant) => {
    const r = results[name]![variant]
    const m = r.median
    const kinds = r.samples[0]!.peakRssByKindMiB
    const split = Object.entries(kinds)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')
    const ours = results[name]!.archives.median.bootMs
    const ratio = variant === 'archives' ? '' : ` (× ${(m.bootMs / ours).toFixed(2)})`
    const label =
      variant === 'archives'
        ? 'the sandbox: archives, TLS off'
        : variant === 'no archives'
          ? 'no archives, TLS off'
          : "archives, TLS permissive (RocketMQ's default)"
    return `| ${name} | ${label} | ${m.nodes} | ${spread(r.samples.map((s) => s.bootMs))}${ratio} | ${
      m.registeredMs === null ? 'timeout' : `+${(m.registeredMs / 1000).toFixed(1)} s`
    } | ${m.peakRssMiB.toFixed(0)} MiB | ${split} |`
  })
)
const table = `| topology | JVMs | server nodes | boot to all ready, median [min–max] of ${RUNS} (ratio to the sandbox's) | all brokers on all name servers, after brokers up | peak total RSS | RSS split at peak, MiB (run 1) |
|---|---|---|---|---|---|---|
${rows.join('\n')}

${cpuCount} CPUs, load average ${loadBefore[0]!.toFixed(1)} before / ${out.loadAvg.after[0]!.toFixed(1)} after (other work on the machine inflates boot times); archives as \`npm run setup\` writes them (.rocketmq/class-archives); samples in bench/results/sandbox.json`
console.log(table)
writeResultMarkdown(
  'sandbox',
  'Sandbox boot',
  'npm run bench:sandbox',
  { before: loadBefore.map((x) => Math.round(x * 100) / 100), after: loadNow() },
  table
)
