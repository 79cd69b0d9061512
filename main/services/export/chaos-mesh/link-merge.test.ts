import { describe, expect, it } from 'vitest'
import type { PairFault } from './link-merge'
import { mergeFaults, mergePair, pairStates } from './link-merge'

const delay = (over: Partial<PairFault> = {}): PairFault =>
  ({
    action: 'delay',
    target: 'room1',
    peer: 'room2',
    direction: 'both',
    latencyMs: 20,
    jitterMs: 2,
    ...over
  }) as PairFault
const loss = (over: Partial<PairFault> = {}): PairFault =>
  ({
    action: 'loss',
    target: 'room1',
    peer: 'room2',
    direction: 'both',
    lossPct: 30,
    ...over
  }) as PairFault

describe('mergeFaults: overlapping faults on one pair become one object', () => {
  it('delay and loss on the same pair: one netem object with both', () => {
    expect(mergeFaults([delay(), loss()])).toEqual([
      {
        action: 'netem',
        from: 'room1',
        to: 'room2',
        direction: 'both',
        delay: { latencyMs: 20, jitterMs: 2 },
        lossPct: 30
      }
    ])
  })

  it('the pair is the same whichever end a fault names first', () => {
    const merged = mergeFaults([delay(), loss({ target: 'room2', peer: 'room1' })])
    expect(merged).toHaveLength(1)
    expect(merged[0]).toMatchObject({ action: 'netem', lossPct: 30, delay: { latencyMs: 20 } })
  })

  it('a later fault overrides the fields it names (a second delay replaces the first)', () => {
    expect(
      mergeFaults([delay(), delay({ latencyMs: 100, jitterMs: 0 } as Partial<PairFault>)])
    ).toEqual([
      {
        action: 'netem',
        from: 'room1',
        to: 'room2',
        direction: 'both',
        delay: { latencyMs: 100, jitterMs: 0 }
      }
    ])
  })

  it('directions that differ become one `to` object each, never two on one direction', () => {
    const merged = mergeFaults([delay({ direction: 'to' }), loss({ direction: 'from' })])
    expect(merged).toEqual([
      {
        action: 'netem',
        from: 'room1',
        to: 'room2',
        direction: 'to',
        delay: { latencyMs: 20, jitterMs: 2 }
      },
      { action: 'netem', from: 'room2', to: 'room1', direction: 'to', lossPct: 30 }
    ])
  })

  it('a partition wins over shaping in the direction it cuts; the other direction keeps it', () => {
    const cut: PairFault = {
      action: 'partition',
      target: 'room1',
      peer: 'room2',
      direction: 'to',
      mode: 'drop'
    }
    expect(mergeFaults([loss(), cut])).toEqual([
      { action: 'partition', from: 'room1', to: 'room2', direction: 'to' },
      { action: 'netem', from: 'room2', to: 'room1', direction: 'to', lossPct: 30 }
    ])
  })

  it('bandwidth stays its own object (a different tc kind) next to the merged netem one', () => {
    const bw: PairFault = {
      action: 'bandwidth',
      target: 'room1',
      peer: 'room2',
      direction: 'both',
      mbit: 10
    }
    expect(mergeFaults([delay(), bw, loss()]).map((c) => c.action)).toEqual(['netem', 'bandwidth'])
  })

  it('separate pairs stay separate, in order of first mention', () => {
    const merged = mergeFaults([loss({ peer: 'room3' }), delay()])
    expect(merged.map((c) => `${c.from}-${c.to}`)).toEqual(['room1-room3', 'room1-room2'])
  })

  it('zero latency and zero loss need no object at all', () => {
    expect(
      mergeFaults([
        delay({ latencyMs: 0, jitterMs: 0 } as Partial<PairFault>),
        loss({ lossPct: 0 } as Partial<PairFault>)
      ])
    ).toEqual([])
  })
})

describe('pairStates and mergePair', () => {
  it('apply faults per direction', () => {
    const s = pairStates('a', 'b', [
      { action: 'partition', target: 'b', peer: 'a', direction: 'to', mode: 'drop' }
    ])
    expect(s).toEqual({ ab: { blocked: false }, ba: { blocked: true } })
    expect(mergePair('a', 'b', s.ab, s.ba)).toEqual([
      { action: 'partition', from: 'b', to: 'a', direction: 'to' }
    ])
  })

  it('a cut both ways is one partition object', () => {
    expect(mergePair('a', 'b', { blocked: true }, { blocked: true })).toEqual([
      { action: 'partition', from: 'a', to: 'b', direction: 'both' }
    ])
  })
})
