import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { Scenario, TransactionsReport } from '../../../../common/scenario/schema'
import { transactionSharesOf } from '../../../../common/scenario/schema'
import type { TransactionalMessage } from '../../../../common/scenario/transactions'
import { judgeTransactions } from '../../../../common/scenario/transactions'
import { LANE_TRAITS } from '../../../../common/topology/lanes'
import { producerLanes } from './lane-groups'

/** The brokers' check-back timing the run had: the sandbox's settings, or unknown (an operator's). */
export interface CheckBackTiming {
  checkIntervalMs: number | null
  checkAfterMs: number | null
}

/** The transactions section: the checker once per lane (or lane variant), over its producers' sends. */
export function transactionsReportOf(
  messages: readonly TransactionalMessage[],
  clients: readonly ClientPlan[],
  scenario: Scenario,
  timing: CheckBackTiming
): TransactionsReport {
  const shares = transactionSharesOf(scenario.workload)
  return {
    commitShare: shares?.commitShare ?? 0,
    checkShare: shares?.checkShare ?? 0,
    ...timing,
    lanes: producerLanes(clients).map(({ lane, plan, ids }) => {
      const report = judgeTransactions(
        messages.filter((m) => ids.has(m.producerId)),
        lane
      )
      // The stock Java client ends a transaction oneway and only logs a failure: it cannot tell.
      // Our client and the gRPC lanes await the end.
      return LANE_TRAITS[plan.lane].runtime === 'node' ? report : { ...report, endLost: null }
    })
  }
}
