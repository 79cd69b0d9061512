/**
 * Network faults in words, for the Timeline, plot markers and toasts: "isolate room1 (drop)",
 * "partition room1 → room2 (reject)", "delay room1 ~ room2 20 ms ± 2", "heal room1".
 *
 * Takes the fault as recorded (unknown fields), so a ledger row written by an older engine still
 * reads; returns null when `f` is not a network fault.
 */
export function describeNetworkFault(f: Record<string, unknown>): string | null {
  const str = (k: string) => (typeof f[k] === 'string' && f[k] ? (f[k] as string) : undefined)
  const num = (k: string) => (typeof f[k] === 'number' ? (f[k] as number) : undefined)
  const action = str('action')
  const target = str('target')
  const peer = str('peer')
  if (action === 'heal') {
    if (target && peer) return `heal ${target} ~ ${peer}`
    return target || peer ? `heal ${target ?? peer}` : 'heal every network fault'
  }
  if (!action || !target) return null
  const mode = str('mode') ?? 'drop'
  if (action === 'isolate') return `isolate ${target} (${mode})`
  if (!peer) return null
  const direction = str('direction') ?? 'both'
  // "to" is packets from target to peer; "from" the other way: always written source → destination.
  const ends =
    direction === 'to'
      ? `${target} → ${peer}`
      : direction === 'from'
        ? `${peer} → ${target}`
        : `${target} ~ ${peer}`
  switch (action) {
    case 'partition':
      return `partition ${ends} (${mode})`
    case 'delay': {
      const jitter = num('jitterMs') ?? 0
      return `delay ${ends} ${num('latencyMs') ?? '?'} ms${jitter ? ` ± ${jitter}` : ''}`
    }
    case 'loss':
      return `loss ${ends} ${num('lossPct') ?? '?'} %`
    case 'bandwidth':
      return `bandwidth ${ends} ${num('mbit') ?? '?'} Mbit/s`
    default:
      return null
  }
}

/** The `network` part of a `fault` ledger row, when the fault was a network fault. */
export function networkOfFaultRow(data: Record<string, unknown>): Record<string, unknown> | null {
  const n = data.network
  return n && typeof n === 'object' && !Array.isArray(n) ? (n as Record<string, unknown>) : null
}
