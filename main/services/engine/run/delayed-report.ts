import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { DelayedJudgement, DelayedMessage } from '../../../../common/scenario/delayed'
import { judgeDelayed } from '../../../../common/scenario/delayed'
import type { ScenarioReport } from '../../../../common/scenario/schema'
import { producerLanes } from './lane-groups'

/**
 * The delayed section: the checker over every message, and in a run of several lanes once per
 * lane over its own producers' messages, so lanes compare side by side.
 */
export function delayedReportOf(
  messages: readonly DelayedMessage[],
  clients: readonly ClientPlan[],
  opts: DelayedJudgement
): NonNullable<ScenarioReport['delayed']> {
  const lanes = producerLanes(clients)
  return {
    ...judgeDelayed(messages, opts),
    lanes:
      lanes.length < 2
        ? []
        : lanes.map(({ lane, ids }) => {
            const {
              mechanism: _m,
              delayMs: _d,
              precisionMs: _p,
              ...figures
            } = judgeDelayed(
              messages.filter((m) => m.producerId !== undefined && ids.has(m.producerId)),
              opts
            )
            return { lane, ...figures }
          })
  }
}
