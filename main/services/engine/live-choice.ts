import type { z } from 'zod'
import type { liveChoiceEventSchema } from '../../../common/contract'
import type { ClientChoice } from '../../../common/scenario/events'
import type { Topology } from '../../../common/topology/schema'

export type LiveChoice = z.infer<typeof liveChoiceEventSchema>

/**
 * brokerName → the topology node id of its master, so the canvas can draw the client's edge. A
 * controller-mode set has no fixed master: its replicas are keyed `brokerName@room`, the room the
 * client reports the set's current master in.
 */
export function masterNodeIds(topology: Topology): Map<string, string> {
  const out = new Map<string, string>()
  for (const room of topology.rooms) {
    for (const b of room.brokers) {
      if (b.role === 'master' && !out.has(b.brokerName)) out.set(b.brokerName, b.id)
      const key = `${b.brokerName}@${room.id}`
      if (b.role === 'replica' && !out.has(key)) out.set(key, b.id)
    }
  }
  return out
}

/** Maps a client's choice (RocketMQ names) to the `client:choice` payload (topology node ids). */
export function toLiveChoice(
  choice: ClientChoice,
  masters: ReadonlyMap<string, string>,
  runId: number | null,
  at: number = Date.now()
): LiveChoice {
  return {
    runId,
    clientId: choice.clientId,
    role: choice.role,
    room: choice.room,
    // Name-server ids come from the management nodes, which list them by topology node id.
    namesrvId: choice.namesrvId ?? null,
    namesrvRoom: choice.namesrvRoom ?? null,
    brokerId: choice.brokerName
      ? (masters.get(`${choice.brokerName}@${choice.brokerRoom ?? ''}`) ??
        masters.get(choice.brokerName) ??
        null)
      : null,
    brokerName: choice.brokerName ?? null,
    brokerRoom: choice.brokerRoom ?? null,
    at
  }
}
