import { describe, expect, it } from 'vitest'
import { runNaming } from './attached-policy'
import { twoRooms } from './test-world'

const attached = () => {
  const t = twoRooms()
  t.rooms[0]!.brokers[0] = { ...t.rooms[0]!.brokers[0]!, host: '10.1.0.5', port: 10911 }
  return t
}

describe('runNaming', () => {
  it('gives a sandbox scenario run a fresh topic and group, a session the topology’s', () => {
    const run = runNaming({ topology: twoRooms(), runId: 7, kind: 'scenario' })
    expect([run.names.topicOf('orders'), run.names.groupOf('g'), run.topicPolicy]).toEqual([
      'orders-r7',
      'g-r7',
      'create'
    ])
    const session = runNaming({ topology: twoRooms(), runId: 7, kind: 'session' })
    expect([session.names.topicOf('orders'), session.names.groupOf('g')]).toEqual(['orders', 'g'])
  })

  it('never creates a topic or reuses a production group on an attached cluster unless asked', () => {
    for (const kind of ['scenario', 'session'] as const) {
      const run = runNaming({ topology: attached(), runId: 7, kind })
      expect(run.topicPolicy).toBe('require-existing')
      expect(run.names.topicOf('payments')).toBe('payments')
      expect(run.names.groupOf('payments-consumer')).toBe('drstudio-run-7')
    }
    expect(
      runNaming({ topology: attached(), runId: 7, kind: 'scenario', createTopic: true }).topicPolicy
    ).toBe('create')
    const t = attached()
    t.source = { kind: 'discovered', namesrv: 'x', at: 'now', rooms: 'zone', createTopic: true }
    expect(runNaming({ topology: t, runId: 7, kind: 'session' }).topicPolicy).toBe('create')
  })
})
