import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { OrderedMessage } from '../../../../common/scenario/order'
import { judgeOrder } from '../../../../common/scenario/order'
import type { OrderReport, Scenario } from '../../../../common/scenario/schema'
import { orderKeysOf } from '../../../../common/scenario/schema'
import { laneFollowsOrderPolicy } from '../../../../common/topology/lanes'
import { producerLanes } from './lane-groups'

/**
 * The order section: the checker run once per lane (or lane variant), each over its own producers'
 * messages, with the policy the lane ran: what `wait` kept and `reroute` broke side by side.
 */
export function orderReportOf(
  messages: readonly OrderedMessage[],
  clients: readonly ClientPlan[],
  scenario: Scenario,
  times: { originMs: number; endMs: number }
): OrderReport {
  return {
    orderKeys: orderKeysOf(scenario.workload),
    lanes: producerLanes(clients).map(({ lane, plan, ids }) =>
      judgeOrder(
        messages.filter((m) => ids.has(m.producerId)),
        {
          lane,
          // Our client and java-dr have the setting; the other lanes order the way their library does.
          orderPolicy: laneFollowsOrderPolicy(plan.lane)
            ? (plan.tuning?.orderPolicy ?? scenario.client.orderPolicy)
            : null,
          ...times
        }
      )
    )
  }
}
