import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { anyTimelineStepSchema, scenarioSchema } from './scenario/schema'
import { closestMatch, keysAt, toJsonPath, unknownKeys, valueAt } from './schema-issues'
import { topologySchema } from './topology/schema'

describe('toJsonPath', () => {
  it('writes topology paths from $ and scenario paths from the first key', () => {
    const path = ['rooms', 0, 'brokers', 1, 'port']
    expect(toJsonPath(path)).toBe('$.rooms[0].brokers[1].port')
    expect(toJsonPath(path, '')).toBe('rooms[0].brokers[1].port')
    expect(toJsonPath(['timeline', 0, 'action'], '')).toBe('timeline[0].action')
    expect(toJsonPath([])).toBe('$')
    expect(toJsonPath([], '')).toBe('')
  })

  it('quotes keys that are not identifiers', () => {
    expect(toJsonPath(['layout', 'room 1', 'x'])).toBe('$.layout["room 1"].x')
    expect(toJsonPath(['workload', 'rooms', 'room-1'], '')).toBe('workload.rooms["room-1"]')
    expect(toJsonPath(['a b'], '')).toBe('["a b"]')
  })
})

describe('closestMatch', () => {
  const gates = ['maxRtoMs', 'maxLost', 'maxDuplicates', 'minLocalShare', 'failovers']

  it('prefers the same word in another case', () => {
    expect(closestMatch('maxRtoMS', gates)).toBe('maxRtoMs')
    expect(closestMatch('MAXLOST', gates)).toBe('maxLost')
  })

  it('finds a slip of one or two edits, a swap counting as one', () => {
    expect(closestMatch('prot', ['host', 'port'])).toBe('port')
    expect(closestMatch('maxLots', gates)).toBe('maxLost')
    expect(closestMatch('failover', gates)).toBe('failovers')
    expect(closestMatch('maxDuplicate', gates)).toBe('maxDuplicates')
    expect(closestMatch('kil', ['kill', 'pause', 'heal'])).toBe('kill')
  })

  it('suggests nothing for a word that is like none of them', () => {
    expect(closestMatch('messsages', ['duration', 'rate', 'messageSize', 'lanes'])).toBeNull()
    expect(closestMatch('owner', ['id', 'nameServers', 'brokers', 'proxies'])).toBeNull()
    expect(closestMatch('explode', ['kill', 'pause', 'resume', 'restart'])).toBeNull()
    expect(closestMatch('x', gates)).toBeNull()
  })

  it('allows fewer edits in short words, where two edits make any word another', () => {
    expect(closestMatch('mim', ['max', 'min'])).toBe('min')
    expect(closestMatch('rat', ['rate'])).toBe('rate')
    // "mode" is two edits from "note", but a four-letter word gets one at most.
    expect(closestMatch('mode', ['note', 'at'])).toBeNull()
    expect(closestMatch('pear', ['peer', 'note'])).toBe('peer')
    expect(closestMatch('mn', ['min'])).toBeNull()
    expect(closestMatch('maxRto', gates)).toBe('maxRtoMs')
  })
})

describe('valueAt', () => {
  it('follows the path through objects and arrays, and never into the prototype', () => {
    const doc = { timeline: [{ action: 'kill' }] }
    expect(valueAt(doc, ['timeline', 0, 'action'])).toBe('kill')
    expect(valueAt(doc, ['timeline', 3, 'action'])).toBeUndefined()
    expect(valueAt(doc, ['toString'])).toBeUndefined()
    expect(valueAt('text', ['a'])).toBeUndefined()
  })
})

describe('keysAt', () => {
  it('reads the keys of the object at the path off the schema, through defaults and optionals', () => {
    const doc = { name: 'x', gates: { failovers: [{}] }, abort: {} }
    expect(keysAt(scenarioSchema, doc, [])).toEqual([
      'kind',
      'version',
      'name',
      'description',
      'topology',
      'workload',
      'client',
      'timeline',
      'gates',
      'abort'
    ])
    expect(keysAt(scenarioSchema, doc, ['gates', 'failovers', 0])).toEqual([
      'kind',
      'fromRoom',
      'toRoom',
      'min'
    ])
    expect(keysAt(scenarioSchema, doc, ['abort'])).toEqual([
      'maxFailedShare',
      'maxSendP99Ms',
      'windowMs',
      'minSends'
    ])
  })

  it('follows records and the object branch of a union', () => {
    const doc = { workload: { rooms: { room1: {} }, lanes: ['java', { lane: 'remoting' }] } }
    expect(keysAt(scenarioSchema, doc, ['workload', 'rooms', 'room1'])).toEqual([
      'producers',
      'consumers'
    ])
    expect(keysAt(scenarioSchema, doc, ['workload', 'lanes', 1])).toEqual([
      'lane',
      'name',
      'client'
    ])
  })

  it('takes only the shape a discriminated union picks by the value’s tag', () => {
    const doc = [
      { action: 'kill' },
      { action: 'partition' },
      { action: 'heal' },
      { action: 'nothing-known' }
    ]
    const steps = z.array(anyTimelineStepSchema)
    expect(keysAt(steps, doc, [0])).toEqual(['at', 'action', 'target', 'note'])
    expect(keysAt(steps, doc, [1])).toEqual([
      'at',
      'note',
      'action',
      'target',
      'peer',
      'direction',
      'mode'
    ])
    expect(keysAt(steps, doc, [2])).toEqual(['at', 'note', 'action', 'target', 'peer'])
    expect(keysAt(steps, doc, [3])).toEqual([])
  })

  it('knows the keys of each topology object, so a misplaced key is not suggested', () => {
    const doc = { rooms: [{ nameServers: [{}] }], settings: {} }
    expect(keysAt(topologySchema, doc, ['rooms', 0, 'nameServers', 0])).toContain('port')
    expect(keysAt(topologySchema, doc, ['settings'])).toContain('probeIntervalMs')
    expect(keysAt(topologySchema, doc, [])).not.toContain('probeIntervalMs')
  })
})

describe('unknownKeys', () => {
  it('turns a strict object’s refusal into each key, its path and the key it likely meant', () => {
    const doc = { name: 'x', topology: 't', gates: { maxRtoMS: 100, flaky: true } }
    const r = scenarioSchema.safeParse(doc)
    const issue = r.error!.issues.find((i) => i.code === 'unrecognized_keys')!
    expect(issue.code).toBe('unrecognized_keys')
    const found = unknownKeys(issue as z.core.$ZodIssueUnrecognizedKeys, scenarioSchema, doc)
    expect(found.map(({ key, path, meant }) => ({ key, path, meant }))).toEqual([
      { key: 'maxRtoMS', path: ['gates', 'maxRtoMS'], meant: 'maxRtoMs' },
      { key: 'flaky', path: ['gates', 'flaky'], meant: null }
    ])
    expect(found[0]!.known).toContain('maxLost')
  })
})
