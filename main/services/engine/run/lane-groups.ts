import type { ClientPlan } from '../../../../common/scenario/client-plan'

/** A lane (or lane variant) of a run: its first producer's plan and every producer id in it. */
export interface ProducerLane {
  lane: string
  plan: ClientPlan
  ids: Set<string>
}

/** The run's producers grouped by lane (or lane variant), in plan order: a checker runs once per lane. */
export function producerLanes(clients: readonly ClientPlan[]): ProducerLane[] {
  const lanes = new Map<string, ProducerLane>()
  for (const c of clients) {
    if (c.role !== 'producer') continue
    const lane = c.laneName ?? c.lane
    const entry = lanes.get(lane) ?? { lane, plan: c, ids: new Set<string>() }
    entry.ids.add(c.id)
    lanes.set(lane, entry)
  }
  return [...lanes.values()]
}
