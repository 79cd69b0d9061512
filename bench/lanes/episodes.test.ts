import { describe, expect, it } from 'vitest'
import type { AttemptRow, FaultMoment } from './episodes'
import { episodeRtos, failoverEpisode, reaches } from './episodes'

const a = (over: Partial<AttemptRow>): AttemptRow => ({
  key: 'k',
  brokerName: 'broker-1',
  brokerRoom: 'room1',
  startMs: 0,
  endMs: 5,
  ok: true,
  ...over
})
const to2 = { brokerName: 'broker-2', brokerRoom: 'room2' }
const kill: FaultMoment = {
  commandAt: 1000,
  inPlaceAt: 1030,
  reach: { kind: 'brokers', brokerNames: ['broker-1'] },
  repairAt: 4000,
  endAt: 10_000
}

describe('failover episodes', () => {
  it('one producer on the hit broker: fault → exit → close → retry → acknowledged elsewhere', () => {
    const attempts = [
      a({ key: 'm1', startMs: 900, endMs: 905 }),
      // In flight when the JVM died: the close fails it, the retry goes to broker-2.
      a({ key: 'm2', startMs: 990, endMs: 1040, ok: false }),
      a({ key: 'm2', ...to2, startMs: 1042, endMs: 1050 }),
      a({ key: 'm3', ...to2, startMs: 1100, endMs: 1104 })
    ]
    expect(failoverEpisode('p1', 'room1', attempts, kill)).toEqual({
      producer: 'p1',
      room: 'room1',
      outcome: 'recovered',
      inPlaceMs: 30,
      detectMs: 40,
      retryMs: 42,
      ackMs: 50,
      recoveredBy: 'retry',
      inFlight: true,
      hitAttempts: 0
    })
  })

  it('a lane that spreads traffic: its send in flight to the other room is no recovery, its next one is', () => {
    const attempts = [
      a({ key: 'm1', startMs: 950, endMs: 960 }),
      // Started before the fault, to broker-2, acknowledged after it: the fault did not touch it.
      a({ key: 'm2', ...to2, startMs: 990, endMs: 1010 }),
      // Round robin comes back to broker-1: refused; the retry goes to broker-2.
      a({ key: 'm3', startMs: 1100, endMs: 1101, ok: false }),
      a({ key: 'm3', ...to2, startMs: 1102, endMs: 1110 }),
      // The first send after the fault, to broker-2 by round robin: what its application sees.
      a({ key: 'm4', ...to2, startMs: 1050, endMs: 1060 })
    ]
    const e = failoverEpisode('java-1', 'room1', attempts, kill)!
    expect(e).toMatchObject({ ackMs: 60, retryMs: 50, detectMs: 101, recoveredBy: 'next-send' })
    expect(e.hitAttempts).toBe(1)
    expect(e.inFlight).toBe(false)
    // Without the round-robin send, the retry of the refused one.
    const retried = failoverEpisode('java-1', 'room1', attempts.slice(0, 4), kill)!
    expect(retried).toMatchObject({ ackMs: 110, recoveredBy: 'retry' })
  })

  it('a send begun after the producer learned of the fault recovers it even if it never hit the broker', () => {
    const attempts = [
      a({ key: 'm1', startMs: 990, endMs: 1040, ok: false }),
      a({ key: 'm2', ...to2, startMs: 1045, endMs: 1055 }),
      a({ key: 'm1', ...to2, startMs: 1300, endMs: 1310 })
    ]
    expect(failoverEpisode('p', 'room1', attempts, kill)).toMatchObject({
      ackMs: 55,
      retryMs: 45,
      recoveredBy: 'next-send'
    })
  })

  it('a client that moved on without a failed request recovers from the fault command on', () => {
    const attempts = [
      a({ startMs: 980, endMs: 985 }),
      a({ key: 'm2', ...to2, startMs: 1200, endMs: 1210 })
    ]
    expect(failoverEpisode('p', 'room1', attempts, kill)).toMatchObject({
      outcome: 'recovered',
      detectMs: null,
      ackMs: 210,
      recoveredBy: 'next-send'
    })
  })

  it('a failure long after the recovery (the restarted broker refusing) does not move the recovery', () => {
    const attempts = [
      a({ startMs: 950, endMs: 960 }),
      a({ key: 'm2', ...to2, startMs: 1250, endMs: 1321 }),
      a({ key: 'm9', startMs: 9500, endMs: 9501, ok: false }),
      a({ key: 'm9', ...to2, startMs: 9502, endMs: 9510 })
    ]
    expect(failoverEpisode('p', 'room1', attempts, kill)).toMatchObject({
      ackMs: 321,
      detectMs: 8501,
      recoveredBy: 'next-send'
    })
  })

  it('a producer that was not sending to a hit broker has no episode', () => {
    const attempts = [
      a({ ...to2, startMs: 900, endMs: 910 }),
      a({ ...to2, startMs: 1100, endMs: 1110 })
    ]
    expect(failoverEpisode('p', 'room2', attempts, kill)).toBeNull()
    // Sending to it, but not lately.
    expect(failoverEpisode('p', 'room1', [a({ startMs: -1500, endMs: -1490 })], kill)).toBeNull()
  })

  it('a producer that saw no failure and kept being served by the broker was unaffected, not an RTO of 0', () => {
    const attempts = [a({ startMs: 950, endMs: 960 }), a({ key: 'm2', startMs: 1100, endMs: 1300 })]
    const e = failoverEpisode('p', 'room1', attempts, kill)!
    expect(e.outcome).toBe('unaffected')
    expect(episodeRtos([e])).toEqual([])
    // Served by the restarted broker only after the repair: it waited the fault out, unrecovered.
    const late = [a({ startMs: 950, endMs: 960 }), a({ key: 'm2', startMs: 1100, endMs: 4300 })]
    expect(failoverEpisode('p', 'room1', late, kill)!.outcome).toBe('unrecovered')
  })

  it('failures and no acknowledgement elsewhere before the workload ended: unrecovered, ranked ∞', () => {
    const attempts = [
      a({ startMs: 950, endMs: 960 }),
      a({ key: 'm2', startMs: 1010, endMs: 1410, ok: false }),
      a({ key: 'm2', ...to2, startMs: 10_500, endMs: 10_510 })
    ]
    const e = failoverEpisode('p', 'room1', attempts, kill)!
    expect(e).toMatchObject({ outcome: 'unrecovered', detectMs: 410, ackMs: null })
    expect(episodeRtos([e])).toEqual([Infinity])
  })

  it('a failure whose broker the lane does not name (a proxy lane) still tells it of the fault', () => {
    const attempts = [
      a({ startMs: 950, endMs: 960 }),
      a({ key: 'm2', brokerName: null, brokerRoom: null, startMs: 1010, endMs: 1500, ok: false }),
      a({ key: 'm2', ...to2, startMs: 1501, endMs: 1520 })
    ]
    expect(failoverEpisode('p', 'room1', attempts, kill)).toMatchObject({
      detectMs: 500,
      ackMs: 520,
      recoveredBy: 'retry'
    })
  })

  it('a link fault reaches only traffic that crosses it', () => {
    const cut = { kind: 'link' as const, room: 'room1', peer: null }
    expect(reaches(cut, 'room1', 'broker-1', 'room1')).toBe(false)
    expect(reaches(cut, 'room1', 'broker-2', 'room2')).toBe(true)
    expect(reaches(cut, 'room2', 'broker-1', 'room1')).toBe(true)
    expect(reaches(cut, 'room2', 'broker-3', 'room3')).toBe(false)
    const pair = { kind: 'link' as const, room: 'room1', peer: 'room3' }
    expect(reaches(pair, 'room1', 'broker-2', 'room2')).toBe(false)
    expect(reaches(pair, 'room3', 'broker-1', 'room1')).toBe(true)
    // A room-2 producer spreading over both rooms is hit on its room-1 half only.
    const attempts = [
      a({ startMs: 990, endMs: 995 }),
      a({ key: 'm2', startMs: 1100, endMs: 1500, ok: false }),
      a({ key: 'm2', ...to2, startMs: 1501, endMs: 1503 })
    ]
    expect(
      failoverEpisode('p', 'room2', attempts, { ...kill, reach: cut, inPlaceAt: 1005 })
    ).toMatchObject({ inPlaceMs: 5, detectMs: 500, ackMs: 503, recoveredBy: 'retry' })
  })
})
