import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { DeliveryAt } from '../../../../common/scenario/failback'
import { judgeFailback } from '../../../../common/scenario/failback'
import type { ScenarioReport } from '../../../../common/scenario/schema'

/**
 * The fail-back section: the checker over the whole run, and in a run of several lanes once per
 * lane (each lane's consumers read their own topic, so each is judged alone).
 */
export function failbackReportOf(
  deliveries: readonly DeliveryAt[],
  clients: readonly ClientPlan[],
  times: { repairAt: number | null; originMs: number }
): NonNullable<ScenarioReport['failback']> {
  const laneOfClient = new Map(clients.map((c) => [c.id, c.laneName ?? null]))
  const judge = (list: readonly DeliveryAt[]) =>
    judgeFailback(list, { ...times, laneOf: (id) => laneOfClient.get(id) ?? null })
  const lanes = [...new Set(clients.flatMap((c) => (c.laneName ? [c.laneName] : [])))]
  return {
    ...judge(deliveries),
    lanes: lanes.map((lane) => {
      const f = judge(deliveries.filter((d) => laneOfClient.get(d.clientId) === lane))
      return {
        lane,
        duplicatesBeforeRepair: f.duplicatesBeforeRepair,
        duplicatesAfterRepair: f.duplicatesAfterRepair,
        rewinds: f.rewinds
      }
    })
  }
}
