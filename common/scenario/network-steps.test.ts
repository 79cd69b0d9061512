import { readFileSync, readdirSync } from 'node:fs'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import {
  anyTimelineStepSchema,
  isNetworkStep,
  networkFaultSchema,
  networkStepSchema,
  scenarioSchema
} from './schema'

describe('network timeline steps', () => {
  it('parse the issue vocabulary with defaults filled in', () => {
    const steps = parse(`
- { at: 5s, action: isolate, target: room1 }
- { at: 5s, action: partition, target: room1, peer: room2, direction: both, mode: drop }
- { at: 5s, action: partition, target: broker-1, peer: ns-2 }
- { at: 5s, action: delay, target: room1, peer: room2, latencyMs: 20, jitterMs: 2 }
- { at: 5s, action: loss, target: room1, peer: room2, lossPct: 30 }
- { at: 5s, action: bandwidth, target: room1, peer: room2, mbit: 10 }
- { at: 15s, action: heal }
- { at: 16s, action: heal, target: room1, peer: room2 }
`) as unknown[]
    const parsed = steps.map((s) => networkStepSchema.parse(s))
    expect(parsed).toEqual([
      { at: 5000, action: 'isolate', target: 'room1', mode: 'drop' },
      {
        at: 5000,
        action: 'partition',
        target: 'room1',
        peer: 'room2',
        direction: 'both',
        mode: 'drop'
      },
      {
        at: 5000,
        action: 'partition',
        target: 'broker-1',
        peer: 'ns-2',
        direction: 'both',
        mode: 'drop'
      },
      {
        at: 5000,
        action: 'delay',
        target: 'room1',
        peer: 'room2',
        direction: 'both',
        latencyMs: 20,
        jitterMs: 2
      },
      { at: 5000, action: 'loss', target: 'room1', peer: 'room2', direction: 'both', lossPct: 30 },
      {
        at: 5000,
        action: 'bandwidth',
        target: 'room1',
        peer: 'room2',
        direction: 'both',
        mbit: 10
      },
      { at: 15000, action: 'heal' },
      { at: 16000, action: 'heal', target: 'room1', peer: 'room2' }
    ])
    expect(parsed.every((s) => isNetworkStep(s))).toBe(true)
  })

  it('refuse bad values with the field that is wrong', () => {
    const issue = (v: unknown) => {
      const r = networkStepSchema.safeParse(v)
      return r.success ? null : r.error.issues[0]!.path.join('.')
    }
    expect(issue({ at: 1, action: 'partition', target: 'room1' })).toBe('peer')
    expect(
      issue({ at: 1, action: 'partition', target: 'room1', peer: 'room2', direction: 'sideways' })
    ).toBe('direction')
    expect(
      issue({ at: 1, action: 'partition', target: 'room1', peer: 'room2', mode: 'blackhole' })
    ).toBe('mode')
    expect(issue({ at: 1, action: 'loss', target: 'room1', peer: 'room2', lossPct: 101 })).toBe(
      'lossPct'
    )
    expect(issue({ at: 1, action: 'bandwidth', target: 'room1', peer: 'room2', mbit: 0 })).toBe(
      'mbit'
    )
    expect(issue({ at: 1, action: 'delay', target: 'room1', peer: 'room2' })).toBe('latencyMs')
    expect(networkFaultSchema.safeParse({ action: 'isolate', target: 'room1' }).success).toBe(true)
  })

  it('share one timeline union with the node actions, and every shipped scenario still parses', () => {
    const node = anyTimelineStepSchema.parse({
      at: '5s',
      action: 'kill',
      target: 'all brokers of room1'
    })
    expect(isNetworkStep(node)).toBe(false)
    expect(
      isNetworkStep(anyTimelineStepSchema.parse({ at: '5s', action: 'isolate', target: 'room1' }))
    ).toBe(true)
    for (const f of readdirSync('resources/scenarios')) {
      const doc = parse(readFileSync(`resources/scenarios/${f}`, 'utf8'))
      expect(scenarioSchema.safeParse(doc).success, f).toBe(true)
      for (const step of doc.timeline ?? [])
        expect(anyTimelineStepSchema.safeParse(step).success, f).toBe(true)
    }
  })
})
