import { describe, expect, it } from 'vitest'
import type { ClientState, QueueState } from '../../worker-wire/protocol'
import type { SettleMember } from './settle'
import { consumersSettled } from './settle'

const q = (brokerName: string, queueId: number): QueueState => ({
  brokerName,
  room: brokerName === 'broker-a' ? 'room1' : 'room2',
  queueId
})
const ALL = [q('broker-a', 0), q('broker-a', 1), q('broker-b', 0), q('broker-b', 1)]
const state = (id: string, room: string, assignment: QueueState[]): ClientState => ({
  id,
  alive: true,
  cid: `10.0.0.1@${id}@${room}`,
  assignment,
  readableQueues: ALL
})
const lanes = (id: string): SettleMember =>
  id.endsWith('-java') ? { group: 'g-java', rule: 'once' } : { group: 'g-remoting', rule: 'nearby' }

describe('consumersSettled', () => {
  const remoting = [
    state('c1-remoting', 'room1', ALL.slice(0, 2)),
    state('c2-remoting', 'room2', ALL.slice(2))
  ]

  it('judges each group on its own: another lane never changes what ours should hold', () => {
    // Stock Java allocation ignores rooms: any split holding every queue once is settled.
    const java = [
      state('c1-java', 'room1', [ALL[0]!, ALL[2]!]),
      state('c2-java', 'room2', [ALL[1]!, ALL[3]!])
    ]
    expect(consumersSettled([...remoting, ...java], lanes)).toBe(true)
    // Judged as one group, room 1's remoting consumer would be expected to share room 1's queues.
    expect(consumersSettled([...remoting, ...java])).toBe(false)
  })

  it('our lane must hold exactly what the nearby rule gives it', () => {
    const crossed = [
      state('c1-remoting', 'room1', ALL.slice(1, 3)),
      state('c2-remoting', 'room2', [ALL[0]!, ALL[3]!])
    ]
    expect(consumersSettled(crossed, lanes)).toBe(false)
    expect(consumersSettled(remoting, lanes)).toBe(true)
  })

  it('other lanes: a queue held twice, or by nobody, is not settled yet', () => {
    const twice = [
      state('c1-java', 'room1', ALL.slice(0, 3)),
      state('c2-java', 'room2', ALL.slice(2))
    ]
    expect(consumersSettled(twice, lanes)).toBe(false)
    const orphan = [
      state('c1-java', 'room1', ALL.slice(0, 2)),
      state('c2-java', 'room2', ALL.slice(2, 3))
    ]
    expect(consumersSettled(orphan, lanes)).toBe(false)
  })

  it('lanes that allocate by room: a member that started first and still holds the other room is not settled', () => {
    const dr = (id: string): SettleMember => ({
      group: 'g-java-dr',
      rule: 'rooms',
      room: id.startsWith('c1') ? 'room1' : 'room2'
    })
    // Room 1's consumer took every queue before room 2's joined; room 2's holds none yet.
    const early = [state('c1-java-dr', 'room1', ALL), state('c2-java-dr', 'room2', [])]
    expect(consumersSettled(early, dr)).toBe(false)
    // The same split is fine for a lane that allocates averagely: each queue is held once.
    expect(consumersSettled(early, (id) => ({ ...dr(id), rule: 'once' }))).toBe(true)
    const settled = [
      state('c1-java-dr', 'room1', ALL.slice(0, 2)),
      state('c2-java-dr', 'room2', ALL.slice(2))
    ]
    expect(consumersSettled(settled, dr)).toBe(true)
    // A room without a member of the group: its queues may sit anywhere (AllocateMachineRoomNearby).
    const alone = [state('c1-java-dr', 'room1', ALL)]
    expect(consumersSettled(alone, dr)).toBe(true)
  })

  it('POP consumers own no queues and never hold a run back', () => {
    const pop: ClientState = { id: 'c1-grpc', alive: true, cid: 'x@c1-grpc@room1' }
    expect(consumersSettled([pop, ...remoting], lanes)).toBe(true)
  })
})
