import { describe, expect, it } from 'vitest'
import { pairRoomLinks, roomArc } from './room-links'

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
