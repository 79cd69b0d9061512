import { describe, expect, it } from 'vitest'
import type { TopicRoute } from '../../remoting/types'
import { FaultTable } from './fault-table'
import { readableQueues, routeSignature, routeToBrokers } from './route-table'

const route: Pick<TopicRoute, 'brokerDatas' | 'queueDatas'> = {
  brokerDatas: [
    {
      cluster: 'C',
      brokerName: 'broker-b',
      brokerAddrs: { '0': '127.0.0.1:20911', '1': '127.0.0.1:20921' },
      zoneName: 'room2',
      enableActingMaster: false
    },
    {
      cluster: 'C',
      brokerName: 'broker-a',
      brokerAddrs: { '1': '127.0.0.1:10921' },
      zoneName: 'room1',
      enableActingMaster: false
    },
    {
      cluster: 'C',
      brokerName: 'legacy',
      brokerAddrs: { '0': '127.0.0.1:30911' },
      zoneName: undefined,
      enableActingMaster: false
    }
  ],
  queueDatas: [
    { brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 },
    { brokerName: 'broker-b', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 },
    { brokerName: 'legacy', readQueueNums: 2, writeQueueNums: 2, perm: 4, topicSysFlag: 0 }
  ]
}

describe('routeToBrokers', () => {
  it('joins queue data, tags rooms and honours permissions', () => {
    expect(routeToBrokers(route)).toEqual([
      {
        brokerName: 'broker-a',
        room: 'room1',
        masterAddr: undefined,
        writeQueues: 4,
        readQueues: 4
      },
      {
        brokerName: 'broker-b',
        room: 'room2',
        masterAddr: '127.0.0.1:20911',
        writeQueues: 4,
        readQueues: 4
      },
      {
        brokerName: 'legacy',
        room: null,
        masterAddr: '127.0.0.1:30911',
        writeQueues: 0,
        readQueues: 2
      }
    ])
  })
  it("places a group in the topology's room (its master's) before the zone a slave elsewhere registered last", () => {
    const rooms = routeToBrokers(route, () => undefined, { 'broker-b': 'room1' })
    expect(rooms.map((b) => [b.brokerName, b.room])).toEqual([
      ['broker-a', 'room1'],
      ['broker-b', 'room1'],
      ['legacy', null]
    ])
    // The master's address, where known (a controller-mode group), wins over both.
    const moved = routeToBrokers(route, (a) => (a === '127.0.0.1:20911' ? 'room3' : undefined), {
      'broker-b': 'room1'
    })
    expect(moved.find((b) => b.brokerName === 'broker-b')!.room).toBe('room3')
  })

  it('lists readable queues of brokers that have a master', () => {
    const qs = readableQueues(routeToBrokers(route))
    expect(qs.map((q) => `${q.brokerName}#${q.queueId}@${q.room}`)).toEqual([
      'broker-b#0@room2',
      'broker-b#1@room2',
      'broker-b#2@room2',
      'broker-b#3@room2',
      'legacy#0@null',
      'legacy#1@null'
    ])
  })
  it('signature changes only when the route does', () => {
    const a = routeSignature(routeToBrokers(route))
    expect(routeSignature(routeToBrokers({ ...route }))).toBe(a)
    expect(
      routeSignature(routeToBrokers({ ...route, brokerDatas: route.brokerDatas.slice(1) }))
    ).not.toBe(a)
  })
  it('a broker missing from queue data has no queues', () => {
    expect(
      routeToBrokers({ brokerDatas: route.brokerDatas.slice(0, 1), queueDatas: [] })[0]
    ).toMatchObject({ writeQueues: 0, readQueues: 0 })
  })
})

describe('FaultTable', () => {
  it('isolates once, keeps the first reason, and recovers', () => {
    const t = new FaultTable()
    expect(
      t.isolate({ brokerName: 'a', address: 'x:1', room: 'room1', reason: 'timeout', since: 10 })
    ).toBe(true)
    expect(
      t.isolate({ brokerName: 'a', address: 'x:2', room: 'room1', reason: 'reset', since: 20 })
    ).toBe(false)
    expect(t.list()[0]).toMatchObject({ reason: 'timeout', since: 10, address: 'x:2' })
    expect(t.sinceMap()).toEqual(new Map([['a', 10]]))
    expect(t.recover('a')?.reason).toBe('timeout')
    expect(t.has('a')).toBe(false)
  })
  it('hands out probes no more often than the interval', () => {
    const t = new FaultTable()
    t.isolate({ brokerName: 'a', address: 'x:1', room: null, reason: 'timeout', since: 0 })
    expect(t.dueForProbe(0, 100)).toHaveLength(1)
    t.list()[0]!.lastProbeAt = 50
    expect(t.dueForProbe(100, 100)).toHaveLength(0)
    expect(t.dueForProbe(150, 100)).toHaveLength(1)
  })
})
