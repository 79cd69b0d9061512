import { describe, expect, it } from 'vitest'
import type { ClientPlan } from '../../../../common/scenario/client-plan'
import type { Scenario } from '../../../../common/scenario/schema'
import type { TransactionalMessage } from '../../../../common/scenario/transactions'
import { transactionsReportOf } from './transactions-report'

const producer = (id: string, lane: ClientPlan['lane']): ClientPlan => ({
  id,
  role: 'producer',
  room: 'room1',
  topic: 'orders',
  group: 'orders-producer',
  rate: 10,
  messageSize: 128,
  lane,
  laneName: lane
})

const lost = (key: string, producerId: string): TransactionalMessage => ({
  key,
  producerId,
  status: 'acked',
  decision: 'commit',
  end: 'lost',
  checksAnswered: 1,
  deliveries: 1
})

describe('transactionsReportOf', () => {
  it('judges each lane over its own producers; a lost end is n/a where the client cannot see it', () => {
    const scenario = { workload: { messages: 'transactional' } } as Scenario
    const report = transactionsReportOf(
      [lost('a', 'p-ours'), lost('b', 'p-ours'), lost('c', 'p-java'), lost('d', 'p-grpc')],
      [producer('p-ours', 'remoting'), producer('p-java', 'java'), producer('p-grpc', 'grpc')],
      scenario,
      { checkIntervalMs: 2000, checkAfterMs: 6000 }
    )
    expect(report).toMatchObject({ commitShare: 0.8, checkShare: 0.2, checkIntervalMs: 2000 })
    expect(report.lanes.map((l) => [l.lane, l.sent, l.endLost])).toEqual([
      ['remoting', 2, 2],
      ['java', 1, null],
      // The gRPC lanes await the end through the proxy, so they can tell.
      ['grpc', 1, 1]
    ])
  })
})
