import { describe, expect, it } from 'vitest'
import type { ClientPlan } from '../../../../common/scenario/client-plan'
import { scenarioSchema } from '../../../../common/scenario/schema'
import type { ClientLane } from '../../../../common/topology/lanes'
import { orderReportOf } from './order-report'

const producer = (lane: ClientLane, laneName?: string): ClientPlan => ({
  id: `producer-1-${laneName ?? lane}`,
  role: 'producer',
  room: 'room1',
  topic: 'orders',
  group: 'orders-producer',
  rate: 10,
  messageSize: 256,
  lane,
  ...(laneName ? { laneName, tuning: { orderPolicy: 'reroute' as const } } : {})
})

describe('orderReportOf', () => {
  it('names the order policy of the lanes that follow it, and none for the libraries that do not', () => {
    const scenario = scenarioSchema.parse({
      name: 'o',
      topology: 'two-rooms',
      workload: { messages: 'ordered' }
    })
    const report = orderReportOf(
      [],
      [
        producer('remoting'),
        producer('remoting', 'remoting-reroute'),
        producer('java'),
        producer('java-dr'),
        producer('java-tuned')
      ],
      scenario,
      { originMs: 0, endMs: 1000 }
    )
    expect(report.lanes.map((l) => [l.lane, l.orderPolicy])).toEqual([
      ['remoting', 'wait'],
      ['remoting-reroute', 'reroute'],
      ['java', null],
      ['java-dr', 'wait'],
      ['java-tuned', null]
    ])
  })
})
