import { describe, expect, it } from 'vitest'
import type { RunPlan } from '../../../../common/scenario/run-plan'
import type { SubscriptionGroupInput } from '../../remoting'
import { prepareFifoGroups } from './fifo-groups'
import type { AdminRemoting } from './run-context'

const MASTERS = [
  { address: 'b1:10911', brokerName: 'broker-a' },
  { address: 'b2:10911', brokerName: 'broker-b' }
]

function ctx(over: { topicPolicy?: RunPlan['topicPolicy']; failFirst?: number } = {}) {
  const created: string[] = []
  let failures = over.failFirst ?? 0
  const admin: AdminRemoting = {
    updateAndCreateTopic: async () => undefined,
    getRouteInfoByTopic: async () => ({}) as never,
    close: () => undefined,
    updateAndCreateSubscriptionGroup: async (address: string, input: SubscriptionGroupInput) => {
      if (failures-- > 0) throw new Error('connect ECONNREFUSED')
      created.push(`${input.groupName}@${address}${input.consumeMessageOrderly ? ' fifo' : ''}`)
    }
  }
  const plan = {
    fifoGroups: ['g-grpc-r3', 'g-baseline-r3'],
    topicPolicy: over.topicPolicy ?? 'create'
  } as unknown as RunPlan
  const notes: string[] = []
  return {
    c: {
      plan,
      admin,
      notes,
      clock: { now: () => Date.now() },
      signal: new AbortController().signal,
      readyTimeoutMs: 300
    },
    created,
    notes
  }
}

describe('prepareFifoGroups', () => {
  it('creates every FIFO group on every serving master, retrying a broker that refused', async () => {
    const { c, created } = ctx({ failFirst: 1 })
    await prepareFifoGroups(c, MASTERS)
    expect(created.sort()).toEqual([
      'g-baseline-r3@b1:10911 fifo',
      'g-baseline-r3@b2:10911 fifo',
      'g-grpc-r3@b1:10911 fifo',
      'g-grpc-r3@b2:10911 fifo'
    ])
  })

  it("creates nothing on an operator's cluster and says which groups must be FIFO", async () => {
    const { c, created, notes } = ctx({ topicPolicy: 'require-existing' })
    await prepareFifoGroups(c, MASTERS)
    expect(created).toEqual([])
    expect(notes[0]).toContain('g-grpc-r3, g-baseline-r3')
    expect(notes[0]).toContain('mqadmin updateSubGroup')
  })

  it('names the group and the broker when a broker never takes it', async () => {
    const { c } = ctx({ failFirst: 1_000 })
    await expect(prepareFifoGroups(c, MASTERS)).rejects.toThrow(
      /cannot create FIFO consumer group g-grpc-r3 on broker-a: connect ECONNREFUSED/
    )
  })
})
