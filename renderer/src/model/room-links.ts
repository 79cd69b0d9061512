import type { XY } from './geometry'

export interface RoomLinkTraffic {
  fromRoom: string
  toRoom: string
  messages: number
  bytes: number
  rate: number
  bytesPerSecond: number
  /** Commit-log bytes replicas in `toRoom` copied from masters in `fromRoom`, and their rate. */
  replicationBytes?: number
  replicationBytesPerSecond?: number
}

/**
 * One direction of a room link as its label reads: the clients' messages and bytes, then what
 * replication copied, each only when there was some.
 */
export function roomLinkText(
  l: RoomLinkTraffic,
  fmt: { rate: (perSecond: number) => string; bytes: (bytes: number) => string }
): string {
  const parts: string[] = []
  if (l.messages > 0) {
    parts.push(
      `${fmt.rate(l.rate)}, ${fmt.bytes(l.bytesPerSecond)}/s · ${l.messages} msgs, ${fmt.bytes(l.bytes)}`
    )
  }
  if ((l.replicationBytes ?? 0) > 0) {
    parts.push(
      `replication ${fmt.bytes(l.replicationBytesPerSecond ?? 0)}/s · ${fmt.bytes(l.replicationBytes!)}`
    )
  }
  return `${l.fromRoom} → ${l.toRoom}: ${parts.join('; ')}`
}

/** Both directions of traffic between two rooms, drawn as one link. */
export interface RoomLinkPair {
  a: string
  b: string
  directions: RoomLinkTraffic[]
}

/** Groups directed room-to-room traffic into one link per room pair, in a stable order. */
export function pairRoomLinks(links: readonly RoomLinkTraffic[]): RoomLinkPair[] {
  const pairs = new Map<string, RoomLinkPair>()
  for (const l of links) {
    const [a, b] = [l.fromRoom, l.toRoom].sort() as [string, string]
    const k = `${a}\u0000${b}`
    let p = pairs.get(k)
    if (!p) pairs.set(k, (p = { a, b, directions: [] }))
    p.directions.push(l)
  }
  for (const p of pairs.values()) p.directions.sort((x, y) => x.fromRoom.localeCompare(y.fromRoom))
  return [...pairs.values()].sort((x, y) => x.a.localeCompare(y.a) || x.b.localeCompare(y.b))
}

/**
 * An arc above two rooms, from the top centre of one to the other's, rising with their distance so
 * links between far rooms clear the ones between neighbours. Returns the path and its apex.
 */
export function roomArc(a: XY, b: XY): { d: string; apex: XY } {
  const lift = 40 + Math.abs(b.x - a.x) * 0.08
  const top = Math.min(a.y, b.y) - lift
  const cx = (a.x + b.x) / 2
  return {
    d: `M${a.x},${a.y} C${a.x},${top} ${b.x},${top} ${b.x},${b.y}`,
    // The cubic's midpoint: 1/8 of each end plus 3/8 of each control point.
    apex: { x: cx, y: (a.y + b.y) / 8 + (top * 3) / 4 }
  }
}
