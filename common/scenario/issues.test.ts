import { readdirSync, readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { parseScenarioDocument } from './issues'
import { scenarioSchema } from './schema'

const ACTIONS =
  'node actions: kill, pause, resume, restart, stop, start; ' +
  'network actions: isolate, partition, delay, loss, bandwidth, heal'

/** The problems of a scenario written in YAML after `name` and `topology`. */
const problemsOf = (yaml: string): string[] =>
  parseScenarioDocument(parse(`name: t\ntopology: two-rooms\n${yaml}`)).problems

describe('unknown keys in a scenario', () => {
  // Each of these parsed without a word before, and the setting it meant was its default.
  const cases: [string, string, string][] = [
    ['the root', 'gate: { maxLost: 0 }', 'gate: unknown key "gate"; did you mean "gates"?'],
    [
      'workload',
      'workload: { duraton: 10s }',
      'workload.duraton: unknown key "duraton"; did you mean "duration"?'
    ],
    [
      'a room of workload.rooms',
      'workload: { rooms: { room1: { producer: 2 } } }',
      'workload.rooms.room1.producer: unknown key "producer"; did you mean "producers"?'
    ],
    [
      'a lane variant',
      'workload: { lanes: [{ lane: remoting, name: hedged, client: { hedged: true } }] }',
      'workload.lanes[0].client.hedged: unknown key "hedged"; did you mean "hedge"?'
    ],
    [
      'gates',
      'gates: { maxRtoMS: 100 }',
      'gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?'
    ],
    [
      'an expected failover of gates.failovers',
      'gates: { failovers: [{ kind: broker, fromroom: room1 }] }',
      'gates.failovers[0].fromroom: unknown key "fromroom"; did you mean "fromRoom"?'
    ],
    [
      'an entry of gates.sendsAfterFault',
      'gates: { sendsAfterFault: [{ fromRoom: room1, viaRoom: room2, minimum: 3 }] }',
      'gates.sendsAfterFault[0].minimum: unknown key "minimum"; remove it (gates.sendsAfterFault[0] takes fromRoom, viaRoom, min)'
    ],
    [
      'client',
      'client: { requestTimout: 500ms }',
      'client.requestTimout: unknown key "requestTimout"; did you mean "requestTimeout"?'
    ],
    [
      'abort',
      'abort: { maxFailedShare: 0.1, window: 5s }',
      'abort.window: unknown key "window"; did you mean "windowMs"?'
    ],
    [
      'a node step',
      'timeline: [{ at: 1s, action: kill, target: broker-1, nots: why }]',
      'timeline[0].nots: unknown key "nots"; did you mean "note"?'
    ],
    [
      'a network step',
      'timeline: [{ at: 1s, action: partition, target: room1, peer: room2, directon: to }]',
      'timeline[0].directon: unknown key "directon"; did you mean "direction"?'
    ]
  ]
  for (const [where, yaml, problem] of cases)
    it(`names one in ${where}, with its path and the key it meant`, () => {
      expect(problemsOf(yaml)).toEqual([problem])
    })

  it('suggests no key when none is close, and lists the keys that object takes', () => {
    expect(problemsOf('workload: { flavour: ordered }')).toEqual([
      'workload.flavour: unknown key "flavour"; remove it (workload takes duration, rate, ' +
        'messageSize, rooms, lane, lanes, messages, delay, orderKeys, commitShare, checkShare, ' +
        'drainTimeout, settleTimeout, ' +
        'warmupTimeout, duplicateGrace)'
    ])
    expect(problemsOf('owner: team-a')).toEqual([
      'owner: unknown key "owner"; remove it (a scenario takes kind, version, name, description, ' +
        'topology, workload, client, timeline, gates, abort)'
    ])
  })

  it('suggests only keys of that very object: a network key on a node step is not "meant"', () => {
    expect(problemsOf('timeline: [{ at: 1s, action: kill, target: room1, peer: room2 }]')).toEqual([
      'timeline[0].peer: unknown key "peer"; remove it (a kill step takes at, action, target, note)'
    ])
  })
})

describe('timeline actions', () => {
  it('an unknown action says which it saw, which exist, and the one it likely meant', () => {
    expect(problemsOf('timeline: [{ at: 1s, action: kil, target: broker-1 }]')).toEqual([
      `timeline[0].action: "kil" is not an action; ${ACTIONS} (did you mean "kill"?)`
    ])
    expect(problemsOf('timeline: [{ at: 1s, action: parition, target: room1 }]')).toEqual([
      `timeline[0].action: "parition" is not an action; ${ACTIONS} (did you mean "partition"?)`
    ])
  })

  it('an action like none of them, or none at all, lists them without a guess', () => {
    expect(problemsOf('timeline: [{ at: 1s, action: explode, target: broker-1 }]')).toEqual([
      `timeline[0].action: "explode" is not an action; ${ACTIONS}`
    ])
    expect(problemsOf('timeline: [{ at: 1s, target: broker-1 }]')).toEqual([
      `timeline[0].action: the step names no action; ${ACTIONS}`
    ])
    expect(problemsOf('timeline: [{ at: 1s, action: 3, target: broker-1 }]')).toEqual([
      `timeline[0].action: number 3 is not an action; ${ACTIONS}`
    ])
  })

  it('a known network action reports its own shape’s problems: a partition without its peer', () => {
    expect(
      problemsOf(`timeline:
  - { at: 1s, action: kill, target: broker-1 }
  - { at: 2s, action: partition, target: room1 }`)
    ).toEqual(['timeline[1].peer: is missing (a partition step needs it)'])
    expect(
      problemsOf('timeline: [{ at: 1s, action: partition, target: room1, peer: room2, mode: cut }]')
    ).toEqual(['timeline[0].mode: is the string "cut"; expected one of "drop", "reject"'])
    expect(problemsOf('timeline: [{ at: 1s, action: delay, target: room1, peer: room2 }]')).toEqual(
      ['timeline[0].latencyMs: is missing (a delay step needs it)']
    )
  })

  it('a step that is not a mapping, or a target of the wrong type, says what it is', () => {
    expect(problemsOf('timeline: [kill broker-1]')).toEqual([
      'timeline[0]: is the string "kill broker-1"; expected a mapping'
    ])
    expect(problemsOf('timeline: [{ at: 1s, action: kill, target: 3 }]')).toEqual([
      'timeline[0].target: is number 3; expected a string or a list'
    ])
  })
})

describe('every problem of a scenario at once', () => {
  it('reports problems at every depth together, not the first one alone', () => {
    const problems = problemsOf(`
colour: blue
workload: { messsages: ordered, duration: soon }
client: { hedged: true }
timeline:
  - { at: 1s, action: kil, target: broker-1 }
  - { at: 2s, action: partition, target: room1 }
gates: { maxRtoMS: 100, minLocalShare: 2, failovers: [{ kind: brokr }] }
abort: { window: 5s }`)
    expect([...problems].sort()).toEqual(
      [
        'colour: unknown key "colour"; remove it (a scenario takes kind, version, name, description, topology, workload, client, timeline, gates, abort)',
        'workload.messsages: unknown key "messsages"; did you mean "messages"?',
        'workload.duration: "soon" is not a duration; write e.g. 500ms, 15s, 2m or a number of milliseconds',
        'client.hedged: unknown key "hedged"; did you mean "hedge"?',
        `timeline[0].action: "kil" is not an action; ${ACTIONS} (did you mean "kill"?)`,
        'timeline[1].peer: is missing (a partition step needs it)',
        'gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?',
        'gates.minLocalShare: 2 is out of range; it must be at most 1',
        'gates.failovers[0].kind: is the string "brokr"; expected one of "namesrv", "broker", "consumer-takeover" (did you mean "broker"?)',
        'abort.window: unknown key "window"; did you mean "windowMs"?',
        // The abort block's own rule is checked too, beside its unknown key.
        'abort: an abort block needs maxFailedShare, maxSendP99Ms or both'
      ].sort()
    )
    // A problem other than an unknown key leaves no scenario to check further.
    expect(
      parseScenarioDocument(
        parse('name: t\ntopology: x\ncolour: blue\nworkload: { duration: soon }')
      ).scenario
    ).toBeNull()
  })

  it('hands back the scenario without its unknown keys when those are the only problems', () => {
    const r = parseScenarioDocument(
      parse(`name: t
topology: two-rooms
workload: { duration: 10s, messsages: ordered }
timeline: [{ at: 1s, action: kill, target: broker-1, pear: 1 }]
gates: { maxRtoMS: 100, maxLost: 2 }`)
    )
    expect(r.problems).toHaveLength(3)
    expect(r.scenario).toMatchObject({
      workload: { duration: 10_000 },
      timeline: [{ at: 1000, action: 'kill', target: 'broker-1' }],
      gates: { maxLost: 2 }
    })
    expect(r.scenario!.gates).not.toHaveProperty('maxRtoMS')
    expect(r.scenario!.workload).not.toHaveProperty('messsages')
  })

  it('says what the document is when it is not a scenario', () => {
    expect(parseScenarioDocument(['a']).problems).toEqual([
      'the file holds an array; a scenario is a YAML mapping (name: …, topology: …)'
    ])
    expect(
      parseScenarioDocument({ kind: 'drstudio/topology', name: 'x', topology: 't' }).problems
    ).toEqual([
      'kind: this is a DR Studio topology, not a scenario; name it in a scenario’s `topology` key'
    ])
    expect(parseScenarioDocument({ topology: 't' }).problems).toEqual(['name: is missing'])
  })
})

describe('scenario snippets in the README and docs/', () => {
  const texts = [
    'README.md',
    ...readdirSync('docs').flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))
  ]
  const roots = new Set(Object.keys(scenarioSchema.shape))
  // A YAML block is a scenario fragment when it is a timeline (a list of steps) or holds only
  // scenario keys (a room map of docs/attach.md is neither).
  const snippets = texts.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((m) => {
      const doc: unknown = parse(m[1]!)
      if (Array.isArray(doc)) return [{ file, doc: { timeline: doc } }]
      if (doc && typeof doc === 'object' && Object.keys(doc).every((k) => roots.has(k)))
        return [{ file, doc }]
      return []
    })
  )

  it('parse under the strict schema, as a reader would copy them', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(3)
    expect(snippets.map((s) => s.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/attach.md'])
    )
    for (const { file, doc } of snippets)
      expect(
        parseScenarioDocument({ name: 't', topology: 'two-rooms', ...doc }).problems,
        file
      ).toEqual([])
  })
})
