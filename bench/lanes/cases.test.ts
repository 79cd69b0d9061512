import { describe, expect, it } from 'vitest'
import { CASES, faultRooms, roomsOf } from './cases'

describe('lane benchmark cases', () => {
  it('keeps about 30 room-1 producers in all, whatever the number of lanes', () => {
    expect(faultRooms(3).room1!.producers).toBe(10)
    expect(faultRooms(6).room1!.producers).toBe(5)
    expect(faultRooms(7).room1!.producers).toBe(4)
    // Never fewer than 2 (one may sit out a fault), never more than 10.
    expect(faultRooms(20).room1!.producers).toBe(2)
    expect(faultRooms(1).room1!.producers).toBe(10)
    expect(faultRooms(7).room2!.producers).toBe(2)
  })

  it('gives the healthy case its own rooms and every fault case the scaled ones', () => {
    const healthy = CASES.find((c) => c.id === 'healthy')!
    expect(roomsOf(healthy, 7).room1!.producers).toBe(2)
    const kill = CASES.find((c) => c.id === 'broker-kill')!
    expect(roomsOf(kill, 3)).toEqual(faultRooms(3))
  })
})
