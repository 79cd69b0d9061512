/** A proxy as the gRPC lane sees it (from a management node's `GET /v1/nameservers`). */
export interface ProxyCandidate {
  id: string
  room: string
  /** host:grpcPort */
  address: string
  /** Zone-pinned: the proxy only routes to its own room's brokers. */
  zoneMode: boolean
  /** The management node's latest probe; null = not probed yet. */
  available: boolean | null
}

export interface ProxyRanking {
  /** Best first; empty when the directory knows no usable proxy. */
  order: ProxyCandidate[]
  reason: 'same-room' | 'other-room' | 'all-suspect' | 'none'
}

/**
 * Room-aware proxy order for the gRPC lane: zone-pinned proxies only (a plain proxy would spread
 * sends over every room), healthy same-room ones first, then other rooms in `roomOrder`. Proxies this
 * client saw fail (`suspects`) or that the management node reports down go last, so a fully broken
 * directory still yields something to try rather than nothing.
 */
export function rankProxies(
  proxies: readonly ProxyCandidate[],
  room: string,
  suspects: ReadonlySet<string>,
  roomOrder: readonly string[] = []
): ProxyRanking {
  const zoned = proxies.filter((p) => p.zoneMode)
  if (zoned.length === 0) return { order: [], reason: 'none' }
  const roomRank = (r: string): number => {
    if (r === room) return -1
    const i = roomOrder.indexOf(r)
    return i === -1 ? roomOrder.length : i
  }
  const healthy = (p: ProxyCandidate): boolean => p.available !== false && !suspects.has(p.id)
  const sorted = [...zoned].sort(
    (a, b) =>
      Number(healthy(b)) - Number(healthy(a)) ||
      roomRank(a.room) - roomRank(b.room) ||
      a.id.localeCompare(b.id)
  )
  const first = sorted[0]!
  const reason = !healthy(first) ? 'all-suspect' : first.room === room ? 'same-room' : 'other-room'
  return { order: sorted, reason }
}

/**
 * The endpoint a user configures for the official client today: one address, their own room's
 * plain proxy if there is one, else any plain proxy, else their room's proxy.
 */
export function baselineEndpoint(
  proxies: readonly ProxyCandidate[],
  room: string
): ProxyCandidate | undefined {
  return (
    proxies.find((p) => !p.zoneMode && p.room === room) ??
    proxies.find((p) => !p.zoneMode) ??
    proxies.find((p) => p.room === room) ??
    proxies[0]
  )
}
