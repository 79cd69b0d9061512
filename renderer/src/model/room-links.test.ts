import { describe, expect, it } from 'vitest'
import { pairRoomLinks, roomArc, roomLinkText } from './room-links'

const link = (fromRoom: string, toRoom: string, messages: number) => ({
  fromRoom,
  toRoom,
  messages,
  bytes: messages * 100,
  rate: 1,
  bytesPerSecond: 100
})

describe('pairRoomLinks', () => {
  it('puts both directions of a room pair on one link', () => {
    const pairs = pairRoomLinks([
      link('room2', 'room1', 3),
      link('room1', 'room3', 1),
      link('room1', 'room2', 5)
    ])
    expect(
      pairs.map((p) => [p.a, p.b, p.directions.map((d) => `${d.fromRoom}>${d.toRoom}`)])
    ).toEqual([
      ['room1', 'room2', ['room1>room2', 'room2>room1']],
      ['room1', 'room3', ['room1>room3']]
    ])
  })
})

describe('roomArc', () => {
  it('rises above both rooms and peaks halfway', () => {
    const { d, apex } = roomArc({ x: 0, y: 100 }, { x: 1000, y: 100 })
    expect(d).toBe('M0,100 C0,-20 1000,-20 1000,100')
    expect(apex).toEqual({ x: 500, y: 10 })
  })
})

describe('roomLinkText', () => {
  const fmt = { rate: (r: number) => `${r}/s`, bytes: (b: number) => `${b} B` }
  const base = { fromRoom: 'room1', toRoom: 'room2', rate: 2, bytesPerSecond: 512, bytes: 4096 }

  it('reads the clients’ traffic, then replication, each only when there was some', () => {
    expect(roomLinkText({ ...base, messages: 8 }, fmt)).toBe(
      'room1 → room2: 2/s, 512 B/s · 8 msgs, 4096 B'
    )
    expect(
      roomLinkText(
        { ...base, messages: 8, replicationBytes: 90_000, replicationBytesPerSecond: 3000 },
        fmt
      )
    ).toBe('room1 → room2: 2/s, 512 B/s · 8 msgs, 4096 B; replication 3000 B/s · 90000 B')
    expect(
      roomLinkText(
        {
          ...base,
          messages: 0,
          rate: 0,
          bytes: 0,
          bytesPerSecond: 0,
          replicationBytes: 700,
          replicationBytesPerSecond: 0
        },
        fmt
      )
    ).toBe('room1 → room2: replication 0 B/s · 700 B')
  })
})
