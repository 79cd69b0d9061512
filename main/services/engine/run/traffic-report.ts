import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { RoomTraffic, TrafficReport } from '../../../../common/scenario/schema'
import type { RoomFlowRow } from '../../ledger/ledger-reader'

/**
 * The traffic section: each client's room flows priced in body bytes (a producer's configured
 * message size per acknowledged send; a consumer's per delivery is the largest size a producer of
 * its topic sends), summed per direction between rooms, with the cross-room share and pace.
 */
export function trafficReportOf(
  flows: readonly RoomFlowRow[],
  clients: readonly ClientPlan[],
  workloadMs: number
): TrafficReport {
  const sizeOf = bodySizes(clients)
  const links = new Map<string, RoomTraffic>()
  let totalBytes = 0
  let crossRoomBytes = 0
  for (const f of flows) {
    const bytes = f.messages * (sizeOf.get(f.clientId) ?? 0)
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
  return {
    links: [...links.values()].sort(
      (a, b) => a.fromRoom.localeCompare(b.fromRoom) || a.toRoom.localeCompare(b.toRoom)
    ),
    totalBytes,
    crossRoomBytes,
    crossRoomShare: totalBytes > 0 ? crossRoomBytes / totalBytes : null,
    crossRoomBytesPerHour:
      workloadMs > 0 ? Math.round((crossRoomBytes * 3_600_000) / workloadMs) : null
  }
}

/** Body bytes per message of every client: its own size (producers), its topic's (consumers). */
function bodySizes(clients: readonly ClientPlan[]): Map<string, number> {
  const byTopic = new Map<string, number>()
  for (const c of clients) {
    if (c.role === 'producer')
      byTopic.set(c.topic, Math.max(byTopic.get(c.topic) ?? 0, c.messageSize))
  }
  return new Map(
    clients.map((c) => [c.id, c.role === 'producer' ? c.messageSize : (byTopic.get(c.topic) ?? 0)])
  )
}
