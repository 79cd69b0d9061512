import { describe, expect, it } from 'vitest'
import type { ClientPlan } from '../../../../common/scenario/client-plan'
import {
  costLine,
  formatBytes,
  formatCost,
  trafficLines
} from '../../../../common/scenario/traffic-text'
import type { RoomFlowRow } from '../../ledger/ledger-reader'
import { trafficReportOf } from './traffic-report'

const client = (
  id: string,
  role: ClientPlan['role'],
  room: string,
  messageSize: number
): ClientPlan => ({
  id,
  role,
  room,
  topic: 'orders',
  group: 'g',
  rate: 10,
  messageSize,
  lane: 'remoting'
})

const clients = [
  client('p1', 'producer', 'room1', 1000),
  client('p2', 'producer', 'room2', 2000),
  client('c1', 'consumer', 'room1', 0),
  client('c2', 'consumer', 'room2', 0)
]

const flow = (
  kind: RoomFlowRow['kind'],
  clientId: string,
  fromRoom: string,
  toRoom: string,
  messages: number,
  producerId: string | null = kind === 'produce' ? clientId : 'p2'
): RoomFlowRow => ({
  kind,
  clientId,
  producerId,
  fromRoom,
  toRoom,
  messages
})

describe('trafficReportOf', () => {
  it('prices flows in body bytes per direction, with the cross-room share and pace', () => {
    const t = trafficReportOf(
      [
        flow('produce', 'p1', 'room1', 'room1', 100),
        flow('produce', 'p1', 'room1', 'room2', 50),
        flow('produce', 'p2', 'room2', 'room2', 100),
        // Consumers read at the largest size their topic's producers send.
        flow('consume', 'c1', 'room2', 'room1', 10),
        flow('consume', 'c2', 'room2', 'room2', 100),
        flow('consume', 'c2', 'room1', 'room2', 40)
      ],
      clients,
      60_000
    )
    expect(t.links).toEqual([
      {
        fromRoom: 'room1',
        toRoom: 'room2',
        produce: { messages: 50, bytes: 50_000 },
        consume: { messages: 40, bytes: 80_000 }
      },
      {
        fromRoom: 'room2',
        toRoom: 'room1',
        produce: { messages: 0, bytes: 0 },
        consume: { messages: 10, bytes: 20_000 }
      }
    ])
    expect(t.totalBytes).toBe(100_000 + 50_000 + 200_000 + 20_000 + 200_000 + 80_000)
    expect(t.crossRoomBytes).toBe(150_000)
    expect(t.crossRoomShare).toBeCloseTo(150_000 / 650_000)
    expect(t.crossRoomBytesPerHour).toBe(150_000 * 60)
  })

  it("prices a delivery at its sender's size, and one the ledger cannot match at nothing", () => {
    const t = trafficReportOf(
      [
        flow('consume', 'c2', 'room1', 'room2', 5, 'p1'),
        flow('consume', 'c2', 'room1', 'room2', 2, null)
      ],
      clients,
      1000
    )
    expect(t.links[0]!.consume).toEqual({ messages: 7, bytes: 5000 })
  })

  it('says nothing moved rather than dividing by zero', () => {
    expect(trafficReportOf([], clients, 0)).toEqual({
      links: [],
      totalBytes: 0,
      crossRoomBytes: 0,
      crossRoomShare: null,
      crossRoomBytesPerHour: null,
      replication: null,
      pricePerGb: null,
      costPerHour: null
    })
  })
})

describe('trafficLines', () => {
  it('reads the section in words', () => {
    expect([0, 1023, 1536, 5 * 1024 ** 3].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.5 KiB',
      '5.0 GiB'
    ])
    const t = trafficReportOf([flow('produce', 'p1', 'room1', 'room2', 3)], clients, 3_600_000, [
      {
        fromRoom: 'room1',
        toRoom: 'room2',
        bytes: 2_000_000,
        pairs: [{ master: 'broker-1', slave: 'broker-1-slave', bytes: 2_000_000 }]
      }
    ])
    expect(trafficLines(t)).toEqual([
      'cross-room client traffic: 2.9 KiB of 2.9 KiB (100.0 %), 2.9 KiB/h at this pace',
      'room1 → room2: produce 3 msgs / 2.9 KiB, consume 0 msgs / 0 B',
      'room1 → room2: replication 1.9 MiB of commit log (broker-1 → broker-1-slave)'
    ])
  })
})

describe('cross-room cost', () => {
  it('prices the cross-room bytes per hour, replication between rooms included', () => {
    // 3 sends of 1000 bytes in one hour across rooms, and 1 GiB replicated room1 → room2.
    const replication = [
      { fromRoom: 'room1', toRoom: 'room2', bytes: 1024 ** 3, pairs: [] },
      { fromRoom: 'room2', toRoom: 'room2', bytes: 5 * 1024 ** 3, pairs: [] }
    ]
    const flows = [flow('produce', 'p1', 'room1', 'room2', 3)]
    const t = trafficReportOf(flows, clients, 3_600_000, replication, 0.02)
    expect(t.pricePerGb).toBe(0.02)
    expect(t.costPerHour).toBeCloseTo(0.02, 4)
    expect(costLine(t)).toBe(
      'cross-room cost: 0.020 per hour at 0.02 per GiB (client and replication traffic, at this pace)'
    )
    expect(trafficReportOf(flows, clients, 3_600_000, null, null).costPerHour).toBeNull()
    expect(costLine(trafficReportOf(flows, clients, 3_600_000))).toBeNull()
    expect(['0.0004', '1.5', '250'].map((v) => formatCost(Number(v)))).toEqual([
      '0.00040',
      '1.50',
      '250'
    ])
  })
})
