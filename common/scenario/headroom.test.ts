import { describe, expect, it } from 'vitest'
import { gatesSchema } from './schema'
import { evaluateGates } from './gates'
import { headroomLine, headroomOf, worstHeadroomShare } from './headroom'

// Room 1's brokers out for 4 s: room 1's clients offered 80 sends, room 2's 80; room 2's broker
// acknowledged 120 of them in the window (40 of room 1's could not be carried in time).
const roomOut = {
  fault: 'kill all brokers of room1',
  atMs: 6000,
  untilMs: 10_000,
  offered: [
    { room: 'room1', sends: 80 },
    { room: 'room2', sends: 80 }
  ],
  carried: [{ room: 'room2', acked: 120 }],
  // Room 1's broker is dead (no samples); room 2's answered, with one sample it could not read.
  load: [
    { room: 'room2', cpuPct: 140.5, sendQueue: 3 },
    { room: 'room2', cpuPct: 180, sendQueue: null },
    { room: 'room2', cpuPct: null, sendQueue: 12 }
  ]
}

describe('headroom', () => {
  it('puts the offered rate against the carried rate, in total and per room', () => {
    const [h] = headroomOf([roomOut])
    expect(h).toEqual({
      fault: 'kill all brokers of room1',
      atMs: 6000,
      untilMs: 10_000,
      offeredPerS: 40,
      carriedPerS: 30,
      share: 0.75,
      rooms: [
        { room: 'room1', offeredPerS: 20, carriedPerS: 0, peakCpuPct: null, peakSendQueue: null },
        { room: 'room2', offeredPerS: 20, carriedPerS: 30, peakCpuPct: 180, peakSendQueue: 12 }
      ]
    })
    expect(headroomLine(h!)).toBe(
      'kill all brokers of room1 (6.0–10.0 s): carried 30.0 of 40.0 msg/s offered (75.0 %); room1 offered 20.0, carried 0.0; room2 offered 20.0, carried 30.0 (broker CPU up to 180 %, send queue up to 12)'
    )
  })

  it('leaves out windows under a second and judges the worst window', () => {
    const blip = { ...roomOut, atMs: 12_000, untilMs: 12_500 }
    const healthy = { ...roomOut, carried: [{ room: 'room2', acked: 160 }] }
    const h = headroomOf([healthy, roomOut, blip])
    expect(h.map((w) => w.share)).toEqual([1, 0.75])
    expect(worstHeadroomShare(h)).toBe(0.75)
    expect(worstHeadroomShare([])).toBeNull()
    expect(headroomOf([{ ...roomOut, offered: [], carried: [] }])[0]!.share).toBeNull()
  })

  it('gates the worst window, and fails a run without a fault window', () => {
    const judge = (headroom: ReturnType<typeof headroomOf>, min: number) =>
      evaluateGates(gatesSchema.parse({ minThroughputDuringFault: min }), {
        lost: 0,
        duplicates: 0,
        sent: 1,
        acked: 1,
        rtoMs: [],
        localSendShare: null,
        localConsumeShare: null,
        sendsVia: () => 0,
        consumedAcross: () => 0,
        failovers: [],
        managementFallbacks: () => 0,
        headroom
      }).slice(1)
    const h = headroomOf([roomOut])
    expect(judge(h, 0.75)).toMatchObject([
      {
        name: 'acknowledged share of the offered rate during faults (worst window)',
        passed: true,
        actual: 0.75
      }
    ])
    expect(judge(h, 0.9)).toMatchObject([{ passed: false, actual: 0.75, limit: 0.9 }])
    expect(judge([], 0.5)).toMatchObject([
      { passed: false, actual: 'no fault window in this run' }
    ])
  })
})
