import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type {
  ReplicationTraffic,
  RoomTraffic,
  TrafficReport
} from '../../../../common/scenario/schema'
import type { RoomFlowRow } from '../../ledger/ledger-reader'

/**
 * The traffic section: each client's room flows priced in body bytes (the sending producer's
 * configured message size, for its sends and for every delivery of them), summed per direction
 * between rooms, with the cross-room share and the pace over `spanMs` (workload start to the end
 * of the drain, when the last deliveries moved); and what replication moved (see replication.ts).
 */
export function trafficReportOf(
  flows: readonly RoomFlowRow[],
  clients: readonly ClientPlan[],
  spanMs: number,
  replication: ReplicationTraffic[] | null = null,
  pricePerGb: number | null = null
): TrafficReport {
  const sizeOf = new Map(clients.map((c) => [c.id, c.messageSize]))
  const links = new Map<string, RoomTraffic>()
  let totalBytes = 0
  let crossRoomBytes = 0
  for (const f of flows) {
    const bytes = f.messages * (f.producerId === null ? 0 : (sizeOf.get(f.producerId) ?? 0))
    totalBytes += bytes
    if (f.fromRoom === f.toRoom) continue
    crossRoomBytes += bytes
    const k = `${f.fromRoom}\u0000${f.toRoom}`
    let l = links.get(k)
    if (!l) {
      l = {
        fromRoom: f.fromRoom,
        toRoom: f.toRoom,
        produce: { messages: 0, bytes: 0 },
        consume: { messages: 0, bytes: 0 }
      }
      links.set(k, l)
    }
    l[f.kind].messages += f.messages
    l[f.kind].bytes += bytes
  }
  const replicated = (replication ?? [])
    .filter((r) => r.fromRoom !== r.toRoom)
    .reduce((n, r) => n + r.bytes, 0)
  const billedPerHour =
    spanMs > 0 ? ((crossRoomBytes + replicated) * 3_600_000) / spanMs / 1024 ** 3 : null
  return {
    pricePerGb,
    costPerHour:
      pricePerGb === null || billedPerHour === null
        ? null
        : Math.round(billedPerHour * pricePerGb * 10_000) / 10_000,
    links: [...links.values()].sort(
      (a, b) => a.fromRoom.localeCompare(b.fromRoom) || a.toRoom.localeCompare(b.toRoom)
    ),
    totalBytes,
    crossRoomBytes,
    crossRoomShare: totalBytes > 0 ? crossRoomBytes / totalBytes : null,
    crossRoomBytesPerHour: spanMs > 0 ? Math.round((crossRoomBytes * 3_600_000) / spanMs) : null,
    replication
  }
}
