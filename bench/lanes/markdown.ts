// The lane benchmark as Markdown: one table per case, the path-for-path comparison, the before /
// after of hedging and of keepOffsets, and the targets with met or missed.
import type { LaneBenchResult } from '../failover-lanes'
import type { PathResult } from './paths'
import type { Interval, LaneSummary } from './summary'
import { FAULT_RATE, RATE } from './cases'
import { CLIENT_LANES, LANE_TRAITS } from '../../common/topology/lanes'

/** Every lane as LANE_TRAITS describes it, with the benchmark's two variants of ours after it. */
function laneLegend(): string {
  const variants = [
    '`remoting-hedged` = the same with hedged sends',
    '`remoting-nokeep` = the same with consumer offsets handled as before'
  ]
  return CLIENT_LANES.flatMap((lane) => [
    `\`${lane}\` = ${LANE_TRAITS[lane].summary}`,
    ...(lane === 'remoting' ? variants : [])
  ]).join('; ')
}

const ms = (x: number | null | undefined | string): string =>
  x === null || x === undefined ? '—' : x === Infinity || x === '∞' ? '∞' : `${x}`
const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`

/** "p50 / p99", "no failure", with how many producers saw none. */
export function rtoCell(s: LaneSummary): string {
  const { rto } = s
  if (rto.producers === 0) return '—'
  if (rto.noFailure === rto.producers) return 'no failure'
  const figs = `${ms(rto.p50Ms)} / ${ms(rto.p99Ms)}`
  return rto.noFailure > 0 ? `${figs} (${rto.noFailure} of ${rto.producers} no failure)` : figs
}

export function homeCell(s: LaneSummary): string {
  const h = s.backHome
  if (h.producers === 0) return '—'
  if (h.stayed === h.producers) return 'stayed'
  if (h.notServed === h.producers) return 'node not back in time'
  const measured = h.producers - h.stayed - h.notServed
  const apart = [
    ...(h.stayed > 0 ? [`${h.stayed} of ${h.producers} stayed`] : []),
    ...(h.notServed > 0 ? [`${h.notServed} of ${h.producers} node not back`] : [])
  ]
  const figure = measured > 0 ? ms(h.medianMs) : '—'
  return apart.length ? `${figure} (${apart.join(', ')})` : figure
}

function caseTable(c: LaneBenchResult['cases'][number]): string[] {
  if (c.focus === 'healthy') {
    const cpu = (lane: string): string => {
      // Variants have a worker of their own (ClientSpec.variant); older results shared ours.
      const x = c.cpu?.[lane] ?? c.cpu?.[lane.startsWith('remoting') ? 'remoting' : lane]
      return x ? `${x.cpuMsPerSec} / ${x.waitMsPerSec} (${x.threads})` : '—'
    }
    return [
      '| lane | wait p50 / p99 (ms) | lag / send p99 (ms) | cross-room share (brokers’ offsets) | cross-room share (ledger) | failed sends / run | duplicates | acked lost | hedges (won) | worker CPU / run-queue wait, ms per s (threads) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...c.lanes.map(
        (s) =>
          `| ${s.lane} | ${ms(s.healthyWait.p50Ms)} / ${ms(s.healthyWait.p99Ms)} | ${ms(s.healthyWait.lagP99Ms)} / ${ms(s.healthyWait.sendP99Ms)} | ${pct(s.brokerCrossRoomShare)} | ${pct(s.healthyCrossRoomShare)} | ${ms(s.failedSendsMedian)} | ${s.duplicates} | ${s.lost} | ${s.hedges} (${s.hedgesWon}) | ${cpu(s.lane)} |`
      )
    ]
  }
  const takeover = c.focus === 'takeover'
  return [
    `| lane | episodes (in flight at the fault, unrecovered, unaffected) | fault → ack elsewhere, median [95 % CI] (ms) | in place / detected / retry sent / acked (ms after the fault, medians) | failed sends / run | fault-window p99 − pre-fault p99 (ms) | schedule lag p99 (ms) | first failure → next success p50 / p99 (ms) | back in own room after the repaired node serves (ms) | cross-room while healthy | duplicates | acked lost |${takeover ? ' takeover: first [95 % CI] / all queues (ms) |' : ''}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${takeover ? '---:|' : ''}`,
    ...c.lanes.map(
      (s) =>
        `| ${s.lane} | ${episodesCell(s)} | ${intervalCell(s.episodes?.rto ?? null)} | ${partsCell(s)} | ${ms(s.failedSendsMedian)} | ${ms(s.p99DeltaMs)} | ${ms(s.scheduleLagP99Ms)} | ${rtoCell(s)} | ${homeCell(s)} | ${pct(s.healthyCrossRoomShare)} | ${s.duplicates} | ${s.lost} |${takeover ? ` ${takeoverCell(s)} |` : ''}`
    )
  ]
}

/** `median [lo–hi]`, — without data. */
export function intervalCell(i: Interval | null): string {
  return i ? `${ms(i.median)} [${ms(i.lo)}–${ms(i.hi)}]` : '—'
}

function episodesCell(s: LaneSummary): string {
  const e = s.episodes
  if (!e || e.episodes === 0) return '—'
  const apart = [
    `${e.inFlight} in flight`,
    ...(e.unrecovered ? [`${e.unrecovered} unrecovered`] : []),
    ...(e.unaffected ? [`${e.unaffected} unaffected`] : [])
  ]
  return `${e.episodes} (${apart.join(', ')})`
}

function partsCell(s: LaneSummary): string {
  const p = s.episodes?.parts
  if (!p || !s.episodes.recovered) return '—'
  return `${ms(p.inPlaceMs)} / ${ms(p.detectMs)} / ${ms(p.retryMs)} / ${ms(p.ackMs)}`
}

export function takeoverCell(s: LaneSummary): string {
  const t = s.takeover
  if (!t) return '—'
  if (t.kind === 'always-shared')
    return t.crossRoomShare === null
      ? 'always shared'
      : `always shared (${pct(t.crossRoomShare)} of deliveries cross rooms)`
  return `${intervalCell(t.first)} / ${ms(t.allMedianMs)}`
}

function pathTable(paths: PathResult[]): string[] {
  const med = (xs: number[]): number | null => {
    if (!xs.length) return null
    const s = [...xs].sort((a, b) => a - b)
    return s[Math.floor((s.length - 1) / 2)]!
  }
  return [
    '| path | client | 200 msg/s wait p50 / p99 / max (ms), all rounds pooled | p99 per round, median (min–max) | where the p99 went: schedule lag / send (ms) | max rate, 16 in flight (msg/s, median of rounds) | max-rate p50 / p99 (ms) |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...paths.map((p) => {
      const p99s = p.fixed.map((f) => f.p99Ms ?? 0)
      const rates = p.max.map((m) => m.msgPerSec)
      const maxP99 = med(p.max.map((m) => m.p99Ms ?? 0))
      const maxP50 = med(p.max.map((m) => m.p50Ms ?? 0))
      return `| ${p.path} | ${p.label} | ${ms(p.fixedPooled.p50Ms)} / ${ms(p.fixedPooled.p99Ms)} / ${ms(p.fixedPooled.maxMs)} | ${ms(med(p99s))} (${ms(Math.min(...p99s))}–${ms(Math.max(...p99s))}) | ${ms(p.fixedPooled.lagP99Ms)} / ${ms(p.fixedPooled.serviceP99Ms)} | ${ms(med(rates))} | ${ms(maxP50)} / ${ms(maxP99)} |`
    })
  ]
}

function lane(
  c: LaneBenchResult['cases'][number] | undefined,
  name: string
): LaneSummary | undefined {
  return c?.lanes.find((s) => s.lane === name)
}

function variantTables(out: LaneBenchResult): string[] {
  if (!out.lanes.includes('remoting-hedged') && !out.lanes.includes('remoting-nokeep')) return []
  const lines: string[] = []
  if (out.lanes.includes('remoting-nokeep')) {
    lines.push(
      '### Duplicates per fault, consumer offsets before and after (same runs)',
      '',
      '`remoting-nokeep` is our client with `keepOffsets: false`: a queue lost to a rebalance or to a dead broker is committed only through the current route, and a regained queue starts at whatever offset the broker has. `remoting` keeps them (see `main/services/clients/room-aware/offset-memory.ts`). Deliveries beyond the first per key, over all runs:',
      '',
      '| case | before (remoting-nokeep) | after (remoting) |',
      '|---|---:|---:|',
      ...out.cases
        .filter((c) => lane(c, 'remoting-nokeep'))
        .map(
          (c) =>
            `| ${c.label} | ${lane(c, 'remoting-nokeep')!.duplicates} | ${lane(c, 'remoting')?.duplicates ?? '—'} |`
        ),
      ''
    )
  }
  if (out.lanes.includes('remoting-hedged')) {
    const row = (c: LaneBenchResult['cases'][number], n: string): string => {
      const s = lane(c, n)
      if (!s) return '— | — | — | —'
      const w =
        c.focus === 'healthy'
          ? `${ms(s.healthyWait.p99Ms)}`
          : `${ms(s.faultWindow.p99Ms)} / ${ms(s.faultWindow.maxMs)}`
      return `${w} | ${s.duplicates} | ${pct(c.focus === 'healthy' ? (s.brokerCrossRoomShare ?? s.healthyCrossRoomShare) : s.healthyCrossRoomShare)} | ${s.hedges} (${s.hedgesWon})`
    }
    lines.push(
      '### Hedged sends, with and without (same runs)',
      '',
      'Wait = what the application waited from the scheduled time: healthy p99 in the healthy case, p99 / max of sends due in the fault window otherwise. Cross-room = share of healthy sends another room stored.',
      '',
      '| case | remoting: wait (ms) | duplicates | cross-room | hedges (won) | remoting-hedged: wait (ms) | duplicates | cross-room | hedges (won) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...out.cases
        .filter((c) => lane(c, 'remoting-hedged'))
        .map((c) => `| ${c.label} | ${row(c, 'remoting')} | ${row(c, 'remoting-hedged')} |`),
      ''
    )
  }
  return lines
}

/** Where the CPU went in the healthy case: every client lane's workers and every server node. */
function cpuTable(out: LaneBenchResult): string[] {
  const healthy = out.cases.find((c) => c.focus === 'healthy')
  const rows = Object.entries(healthy?.cpu ?? {}).sort(
    (a, b) => b[1].cpuMsPerSec - a[1].cpuMsPerSec
  )
  if (rows.length === 0) return []
  return [
    '### Where the CPU went (healthy case, workload phase, median of runs)',
    '',
    'From `/proc/<pid>/task/*/schedstat` of every client worker (by its `DRSTUDIO_WORKER` name, rooms summed) and every sandbox node (by kind): CPU used, and time its threads were runnable but waiting for a CPU, in ms per second of wall time (2 cores = 2000 ms/s). Linux shares CPU per runnable thread, so on a saturated host a one-thread Node worker waits behind JVMs with many.',
    '',
    '| process | CPU (ms/s) | run-queue wait (ms/s) | threads |',
    '|---|---:|---:|---:|',
    ...rows.map(([k, v]) => `| ${k} | ${v.cpuMsPerSec} | ${v.waitMsPerSec} | ${v.threads} |`),
    ''
  ]
}

/**
 * With a load axis (--load): fault → ack elsewhere (and takeover) per case and lane at every step,
 * side by side, with the load averages each step ran at.
 */
function loadTable(out: LaneBenchResult): string[] {
  const steps = [...new Set(out.cases.flatMap((c) => (c.load ? [c.load] : [])))]
  if (steps.length === 0) return []
  const ids = [...new Set(out.cases.filter((c) => c.focus !== 'healthy').map((c) => c.id))]
  const rows = ids.flatMap((id) => {
    const at = (step: string): LaneBenchResult['cases'][number] | undefined =>
      out.cases.find((c) => c.id === id && c.load === step)
    const names = [...new Set(steps.flatMap((st) => at(st)?.lanes.map((l) => l.lane) ?? []))]
    return names.map((n) => {
      const cells = steps.map((st) => {
        const s = lane(at(st), n)
        if (!s) return '—'
        const figure =
          at(st)!.focus === 'takeover' ? takeoverCell(s) : intervalCell(s.episodes?.rto ?? null)
        return `${figure} · lag p99 ${ms(s.scheduleLagP99Ms)}`
      })
      return `| ${id} | ${n} | ${cells.join(' | ')} |`
    })
  })
  const pinned = out.pin
    ? `Servers pinned to CPU ${out.pin.servers}, client workers to CPU ${out.pin.clients} (taskset).`
    : 'Servers and clients share every CPU.'
  return [
    '## Against load',
    '',
    `Each step adds that many busy stress-ng CPU workers for all its cases. ${pinned} Cells: fault → ack elsewhere median [95 % CI] in ms (takeover: first / all queues), then the lane's schedule-lag p99 (due → send started).`,
    '',
    `| case | lane | ${steps.join(' | ')} |`,
    `|---|---|${steps.map(() => '---:|').join('')}`,
    ...rows,
    ''
  ]
}

/** Whether client processes carried over between runs (fresh clients either way). */
function workersLine(out: LaneBenchResult): string {
  const w = out.workers
  if (!w?.reused) return 'Client workers: a fresh process per room and lane every run.'
  return `Client workers: one process per room and lane kept for the whole benchmark (${w.spawned ?? '?'} spawned in all), fresh producers and consumers in it every run.`
}

export function laneMarkdown(out: LaneBenchResult): string {
  const loads = out.load.map((l) => l.load1)
  return [
    '# Failover benchmark: client lanes side by side',
    '',
    `${out.generatedAt} · \`${out.command}\` · ${out.runsPerCase} runs per case · ${out.wallSeconds} s in total · ${out.machine.cpus} × ${out.machine.cpuModel}, ${out.machine.memoryGiB} GiB, Node ${out.machine.node} · rooms as ${out.network} · load average (1 min) ${Math.min(...loads)}–${Math.max(...loads)}: ${out.load.map((l) => `${l.at} ${l.load1}`).join(', ')}.`,
    '',
    `Sandbox: \`two-rooms-proxies\` (RocketMQ 5.3.3: per room a name server, a master broker, a management node and a zone-pinned proxy; a plain proxy in room 1), booted once. Every case runs every lane at once, each on its own topic and group, with per lane the producers its heading names (fault cases: room-1 producers such that about 30 run in all, 2 in room 2, at ${FAULT_RATE} msg/s each; healthy case: 2 producers in room 1 only, at ${RATE} msg/s) and 1 consumer per room. ` +
      workersLine(out) +
      ` Lanes: ${laneLegend()}.`,
    '',
    'How figures are taken: every fault is measured as an **episode** per producer (either room) that used a broker the fault hit in the 2 s before it (bench/lanes/episodes.ts): fault command sent → the fault in place → the producer’s first failed or timed-out attempt at a hit broker (detected) → the start of the send that recovered (a retry of a hit send, or a send begun after detection) → its acknowledgement by a broker the fault did not hit. **Fault → ack elsewhere** is the RTO every lane is ranked on: measured from the fault command for every lane, clipped at nothing; a send already in flight to the other room when the fault struck is not a recovery; a lane that spreads traffic recovers with its first send after the fault that another room acknowledged, as its application sees it. In place = the hit JVM’s exit as the engine saw it (an upper bound: its event loop is as loaded as everything else), or the network rule installed. Unrecovered by the end of the workload = ∞; a producer the hit broker kept serving is *unaffected* and left out. Median over every episode of every run with a 95 % percentile-bootstrap interval (2000 resamples, seeded; the episodes of one run share its fault instant, so the interval is narrower than independent faults would give). Raw episodes: `failover-lanes-episodes.json` beside this file. **Failed sends** are sends the application saw fail (median per run). **Fault-window p99 − pre-fault p99**: what the application waited (from each send’s scheduled time, open-loop, coordinated-omission safe) for sends due between fault and repair, minus the same lane’s tail before the fault. **First failure → next success** is the earlier figure (OpenChaos’ RTO over room-1 producers), kept for comparison. **Back in own room** is the repaired nodes serving again (their sandbox state back to up, so a JVM’s boot is not counted) → first own-room acknowledgement of a room-1 producer (median; “stayed” = never left; “node not back in time” = the restarted node did not serve again before the workload ended). **Duplicates** and **acked lost** are totals over the runs, by message key. **Takeover** = the last of room 1’s consumers of the lane died (its crash recorded) → the first message of a queue room 1 read delivered to a consumer of room 2 that was not already reading that queue (median of runs, bootstrap interval), and when every such queue had one; a lane whose room-2 consumers already read every queue room 1 read took nothing over: *always shared*, with the share of its deliveries that crossed rooms.',
    '',
    ...loadTable(out),
    ...out.cases.flatMap((c) => [
      `## ${c.label}${c.load ? ` · load: ${c.load}` : ''}${c.producers ? ` · per lane ${c.producers.room1} + ${c.producers.room2} producers at ${c.producers.rate} msg/s` : ''}`,
      '',
      ...caseTable(c),
      ''
    ]),
    ...(out.paths
      ? [
          '## Path for path: healthy throughput and tail latency',
          '',
          'Topic on broker-1 only, every client in room 1 in its own worker. Our remoting client and the stock Java producer go straight to broker-1; the gRPC lane and rocketmq-client-nodejs both go through proxy-1. Warm-up (unrecorded sends, then a discarded round at each rate) before anything is measured; rounds interleaved in a balanced order (each lane runs right after each other lane equally often), a second apart. Schedule lag = due time → send started (the process had no CPU or its event loop was busy); send = started → acknowledged.',
          '',
          ...pathTable(out.paths),
          ''
        ]
      : []),
    ...variantTables(out),
    ...cpuTable(out)
  ].join('\n')
}
