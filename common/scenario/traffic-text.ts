import type { TrafficReport } from './schema'

/** Bytes as people read them: B, KiB, MiB, GiB with one decimal. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`
}

/**
 * The traffic section in words, one line per direction between rooms and a summary first: what
 * the CLI scorecard, the app and the HTML report all say.
 */
export function trafficLines(t: TrafficReport): string[] {
  const share =
    t.crossRoomShare === null ? 'nothing moved' : `${(t.crossRoomShare * 100).toFixed(1)} %`
  const pace =
    t.crossRoomBytesPerHour === null
      ? ''
      : `, ${formatBytes(t.crossRoomBytesPerHour)}/h at this pace`
  return [
    `cross-room client traffic: ${formatBytes(t.crossRoomBytes)} of ${formatBytes(t.totalBytes)} (${share})${pace}`,
    ...(costLine(t) ? [costLine(t)!] : []),
    ...t.links.map(
      (l) =>
        `${l.fromRoom} → ${l.toRoom}: produce ${l.produce.messages} msgs / ${formatBytes(l.produce.bytes)}, consume ${l.consume.messages} msgs / ${formatBytes(l.consume.bytes)}`
    ),
    ...(t.replication ?? []).map(
      (r) =>
        `${r.fromRoom} → ${r.toRoom}: replication ${formatBytes(r.bytes)} of commit log (${r.pairs.map((p) => `${p.master} → ${p.slave}`).join(', ')})`
    )
  ]
}

/** The cross-room cost per hour at the topology's price, in words; null without a price. */
export function costLine(t: TrafficReport): string | null {
  if (t.pricePerGb == null || t.costPerHour == null) return null
  const what = t.replication?.some((r) => r.fromRoom !== r.toRoom)
    ? 'client and replication traffic'
    : 'client traffic'
  return `cross-room cost: ${formatCost(t.costPerHour)} per hour at ${t.pricePerGb} per GiB (${what}, at this pace)`
}

/** A cost with enough digits to be read when it is small. */
export function formatCost(v: number): string {
  return v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toPrecision(2)
}
