import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { FailoverReport, LaneEntry, ScenarioReport } from '../../../common/scenario/schema'
import { orderKeysOf, reportSchema, scenarioSchema } from '../../../common/scenario/schema'
import { restoreAction } from '../engine/run/cluster-port'
import type { GateFacts } from '../../../common/scenario/gates'
import { evaluateGates } from '../../../common/scenario/gates'
import { loadScenarioFile, parseScenario, ScenarioFileError } from './load-scenario'
import { checkScenario, planClients, targetNodes } from '../../../common/scenario/client-plan'
import { formatScorecard } from './scorecard'
import { resolveRunPlan } from '../../../common/scenario/run-plan'
import type { RunContext } from '../engine/run/run-context'
import { restoreNodes, specOf } from '../engine/run/setup'

const ROOT = resolve(import.meta.dirname, '../../..')
const RESOURCES = join(ROOT, 'resources')

const facts = (over: Partial<GateFacts> = {}): GateFacts => ({
  lost: 0,
  duplicates: 0,
  sent: 100,
  acked: 100,
  rtoMs: [],
  localSendShare: 1,
  localConsumeShare: 1,
  sendsVia: () => 0,
  consumedAcross: () => 0,
  failovers: [],
  managementFallbacks: () => 0,
  ...over
})

describe('evaluateGates', () => {
  it('always judges loss; other gates only when configured', () => {
    const g = evaluateGates(scenarioSchema.shape.gates.parse({}), facts({ lost: 1 }))
    expect(g).toEqual([{ name: 'lost messages', passed: false, actual: 1, limit: 0 }])
  })

  it('RTO: worst episode, and never-recovered fails', () => {
    const gates = scenarioSchema.shape.gates.parse({ maxRtoMs: 500 })
    expect(evaluateGates(gates, facts({ rtoMs: [12, 480.04] }))[1]).toMatchObject({
      passed: true,
      actual: 480
    })
    expect(evaluateGates(gates, facts({ rtoMs: [12, 501] }))[1]!.passed).toBe(false)
    expect(evaluateGates(gates, facts({ rtoMs: [12, null] }))[1]).toMatchObject({
      passed: false,
      actual: 'never recovered'
    })
    expect(evaluateGates(gates, facts({ rtoMs: [] }))[1]).toMatchObject({ passed: true, actual: 0 })
  })

  it('RPO: messages lost with a replaced master, and a run without controller mode fails it', () => {
    const gates = scenarioSchema.shape.gates.parse({ maxRpoMessages: 10 })
    const rpo = (n: number | null) => evaluateGates(gates, facts({ rpoMessages: n }))[1]
    expect(rpo(10)).toEqual({
      name: 'acknowledged messages lost with a replaced master (RPO)',
      passed: true,
      actual: 10,
      limit: 10
    })
    expect(rpo(11)!.passed).toBe(false)
    expect(rpo(null)).toMatchObject({
      passed: false,
      actual: 'no controller-mode group in this run'
    })
    expect(evaluateGates(gates, facts())[1]!.passed).toBe(false)
  })

  it('locality: sends and consumptions separately; no data fails', () => {
    const gates = scenarioSchema.shape.gates.parse({ minLocalShare: 0.99 })
    const g = evaluateGates(gates, facts({ localSendShare: 0.995, localConsumeShare: null }))
    expect(g.slice(1).map((x) => x.passed)).toEqual([true, false])
  })

  it('cross-room expectations count what the ledger shows', () => {
    const fo = (
      kind: FailoverReport['kind'],
      fromRoom: string,
      toRoom: string
    ): FailoverReport => ({
      atMs: 1,
      clientId: 'c',
      kind,
      fromRoom,
      toRoom,
      reason: 'x',
      durationMs: 1
    })
    const gates = scenarioSchema.shape.gates.parse({
      sendsAfterFault: [{ fromRoom: 'room1', viaRoom: 'room2' }],
      consumedAcross: [{ brokerRoom: 'room1', consumerRoom: 'room2', min: 5 }],
      failovers: [
        { kind: 'namesrv', fromRoom: 'room1', toRoom: 'room2' },
        { kind: 'consumer-takeover' }
      ],
      managementFallbacks: [{ fromRoom: 'room1' }],
      minAckedShare: 1
    })
    const g = evaluateGates(
      gates,
      facts({
        acked: 99,
        sendsVia: (a, b) => (a === 'room1' && b === 'room2' ? 3 : 0),
        consumedAcross: () => 4,
        failovers: [fo('namesrv', 'room1', 'room2'), fo('broker', 'room1', 'room2')],
        managementFallbacks: (from) => (from === 'room1' ? 1 : 0)
      })
    )
    expect(g.map((x) => [x.name, x.passed, x.actual])).toEqual([
      ['lost messages', true, 0],
      ['acknowledged share of sends', false, 0.99],
      ["room1 producers' sends acknowledged by room2 after the fault", true, 3],
      ['room1 messages consumed by room2 consumers after the fault', false, 4],
      ['namesrv failovers room1 → room2', true, 1],
      ['consumer-takeover failovers any → any', false, 0],
      ["room1 clients falling back to another room's management node", true, 1]
    ])
  })
})

/** Paths of keys in `raw` that `parsed` lacks: what a schema would have dropped without a word. */
function droppedKeys(raw: unknown, parsed: unknown, path = ''): string[] {
  if (raw === null || typeof raw !== 'object' || parsed === null || typeof parsed !== 'object')
    return []
  return Object.entries(raw).flatMap(([k, v]) => {
    const at = path ? `${path}.${k}` : k
    return k in parsed ? droppedKeys(v, (parsed as Record<string, unknown>)[k], at) : [at]
  })
}

describe('built-in scenarios', () => {
  const files = readdirSync(join(RESOURCES, 'scenarios')).filter((f) => f.endsWith('.yaml'))

  it('ships the six scenarios of the method, four of the gRPC lane, four of the links, four of controller mode, one of delayed, four of ordered and two of transactional messages, one of fail-back', () => {
    expect(files.sort()).toEqual([
      'broker-cut-from-remote-ns.yaml',
      'controller-leader-and-master-kill.yaml',
      'controller-master-kill-async.yaml',
      'controller-master-kill.yaml',
      'controller-room1-isolated.yaml',
      'delayed-room1-broker-down.yaml',
      'failback-room1-consumers-back.yaml',
      'grpc-healthy.yaml',
      'grpc-ordered-room1-brokers-down.yaml',
      'grpc-room1-brokers-down.yaml',
      'grpc-room1-proxy-down.yaml',
      'healthy.yaml',
      'ordered-pair-down.yaml',
      'ordered-room1-brokers-down.yaml',
      'ordered-room1-consumers-down.yaml',
      'room1-broker-paused.yaml',
      'room1-brokers-and-namesrv-down.yaml',
      'room1-brokers-down-thin-link.yaml',
      'room1-brokers-down.yaml',
      'room1-consumers-down.yaml',
      'room1-isolated.yaml',
      'room1-lossy.yaml',
      'room1-management-down.yaml',
      'transactional-room1-brokers-down.yaml',
      'transactional-sync-slave-down.yaml',
      'wan-latency.yaml'
    ])
  })

  it.each(files)('%s loads against its topology, every key known, and stays short', (f) => {
    const file = join(RESOURCES, 'scenarios', f)
    const l = loadScenarioFile(file, { resourcesDir: RESOURCES })
    // Every key of the file reached the scenario: none was a typo the schema let through.
    expect(droppedKeys(parseYaml(readFileSync(file, 'utf8')), l.scenario)).toEqual([])
    const grpc = f.startsWith('grpc-')
    const wan = f === 'wan-latency.yaml'
    const controller = f.startsWith('controller-')
    const async = f === 'controller-master-kill-async.yaml'
    const sync = f === 'transactional-sync-slave-down.yaml' || f === 'ordered-pair-down.yaml'
    expect(l.topology.name).toBe(
      grpc
        ? 'two-rooms-proxies'
        : sync
          ? 'two-rooms-sync'
          : wan
            ? 'two-rooms-wan'
            : async
              ? 'three-rooms-controller-async'
              : controller
                ? 'three-rooms-controller'
                : 'two-rooms'
    )
    expect(l.scenario.workload.lane).toBe(grpc ? 'grpc' : undefined)
    if (grpc) expect(planClients(l.scenario, l.topology).every((c) => c.lane === 'grpc')).toBe(true)
    // A master switch after a heartbeat timeout (10 s) needs a longer workload to be seen through.
    expect(l.scenario.workload.duration).toBeLessThanOrEqual(controller ? 30_000 : 25_000)
    // Asynchronous replication loses acknowledged messages on a switch: that scenario bounds it.
    if (async) expect(l.scenario.gates.maxRpoMessages).toBeGreaterThan(0)
    else expect(l.scenario.gates.maxLost).toBe(0)
  })

  // Not delayed messages: the Java lanes send none yet (LANE_TRAITS.messageKinds).
  const plain = files.filter((f) => !f.startsWith('delayed-'))
  it.each(plain)('%s runs its workload on the Java lanes too (no proxy needed)', (f) => {
    const l = loadScenarioFile(join(RESOURCES, 'scenarios', f), { resourcesDir: RESOURCES })
    const lanes: LaneEntry[] = ['java', 'java-zone', 'java-tuned']
    const java = { ...l.scenario, workload: { ...l.scenario.workload, lane: undefined, lanes } }
    expect(checkScenario(java, l.topology)).toEqual([])
    expect([...new Set(planClients(java, l.topology).map((c) => c.lane))]).toEqual(lanes)
  })
})

describe('plan and checks', () => {
  const base = (extra: object, topology = 'two-rooms') =>
    parseScenario(JSON.stringify({ name: 't', topology, ...extra }), {
      baseDir: ROOT,
      resourcesDir: RESOURCES
    })

  it("takes each client's lane from the topology unless workload.lane overrides it", () => {
    expect(planClients(base({}).scenario, base({}).topology).map((c) => c.lane)).toEqual([
      'remoting',
      'remoting',
      'remoting',
      'remoting'
    ])
    const l = base(
      { workload: { lane: 'baseline', rooms: { room1: { producers: 1 } } } },
      'two-rooms-proxies'
    )
    expect(planClients(l.scenario, l.topology).map((c) => `${c.id}:${c.lane}`)).toEqual([
      'producer-room1-1:baseline',
      'consumer-room1-1:baseline'
    ])
  })

  it('names the missing proxies when a gRPC lane runs on a topology without them', () => {
    expect(() => base({ workload: { lane: 'grpc' } })).toThrow(
      /grpc lane need a zone-pinned proxy.*add proxies to the topology/
    )
    expect(() => base({ workload: { lanes: ['remoting', 'baseline'] } })).toThrow(
      /baseline lane need a proxy/
    )
    const l = base({ workload: { lanes: ['remoting', 'grpc', 'baseline'] } }, 'two-rooms-proxies')
    expect(checkScenario(l.scenario, l.topology)).toEqual([])
  })

  it('runs the Java lanes without proxies, and refuses java-zone in a room without brokers', () => {
    const l = base({ workload: { lanes: ['java', 'java-zone', 'java-tuned'] } })
    expect(checkScenario(l.scenario, l.topology)).toEqual([])
    expect(planClients(l.scenario, l.topology).map((c) => `${c.id}:${c.lane}`)).toEqual(
      ['java', 'java-zone', 'java-tuned'].flatMap((lane) =>
        ['producer-1', 'consumer-1', 'producer-2', 'consumer-2'].map(
          (id) => `${id}-${lane}:${lane}`
        )
      )
    )
    const noBrokers = {
      ...l.topology,
      rooms: l.topology.rooms.map((r) => (r.id === 'room2' ? { ...r, brokers: [] } : r))
    }
    expect(checkScenario(l.scenario, noBrokers)).toEqual([
      'java-zone clients in room2: the room has no broker, and RocketMQ zone mode routes only same-room brokers; add a broker to room2 or use the java lane there'
    ])
    const topo = base({ workload: { lane: 'java-tuned' } })
    expect(planClients(topo.scenario, topo.topology).every((c) => c.lane === 'java-tuned')).toBe(
      true
    )
  })

  it('refuses a message kind a lane cannot send, naming the lanes that can', () => {
    expect(() =>
      base({ workload: { messages: 'transactional', lanes: ['remoting', 'java-dr'] } })
    ).toThrow(
      /the java-dr lane cannot send transactional messages yet \(lanes that can: remoting, java, java-zone, java-tuned, grpc, baseline\)/
    )
    // The gRPC lanes send half messages and answer check-backs through the proxies.
    const tx = base(
      { workload: { messages: 'transactional', lanes: ['remoting', 'grpc', 'baseline'] } },
      'two-rooms-proxies'
    )
    expect(checkScenario(tx.scenario, tx.topology)).toEqual([])
    // The gRPC lanes send delayed messages through the library's deliveryTimestamp.
    const g = base(
      { workload: { messages: 'delayed', lanes: ['remoting', 'grpc', 'baseline'] } },
      'two-rooms-proxies'
    )
    expect(checkScenario(g.scenario, g.topology)).toEqual([])
    expect(() => base({ workload: { delay: '5s' } })).toThrow(
      /workload.delay applies to delayed messages only/
    )
    const l = base({ workload: { messages: 'delayed', delay: '3s' } })
    expect(checkScenario(l.scenario, l.topology)).toEqual([])
    // The gRPC lanes send FIFO message groups (issue 22).
    const fifo = base(
      { workload: { messages: 'ordered', lanes: ['java', 'grpc', 'baseline'] } },
      'two-rooms-proxies'
    )
    expect(checkScenario(fifo.scenario, fifo.topology)).toEqual([])
    const dr = base({ workload: { messages: 'ordered', lanes: ['java-dr'] } })
    expect(checkScenario(dr.scenario, dr.topology)).toEqual([])
    // The extension leaves transactional sends to the stock client: refused up front.
    expect(() => base({ workload: { messages: 'transactional', lanes: ['java-dr'] } })).toThrow(
      /the java-dr lane cannot send transactional messages yet/
    )
    expect(() => base({ workload: { orderKeys: 8 } })).toThrow(
      /workload.orderKeys applies to ordered messages only/
    )
    const o = base({ workload: { messages: 'ordered', orderKeys: 8 } })
    expect(checkScenario(o.scenario, o.topology)).toEqual([])
    expect(() => base({ workload: { commitShare: 0.5 } })).toThrow(
      /workload.commitShare applies to transactional messages only/
    )
    expect(() => base({ workload: { messages: 'ordered', checkShare: 0.5 } })).toThrow(
      /workload.checkShare applies to transactional messages only/
    )
    expect(() =>
      base({ workload: { messages: 'transactional' }, gates: { maxRpoMessages: 0 } })
    ).toThrow(/gates.maxRpoMessages cannot judge transactional messages/)
    const t = base({ workload: { messages: 'transactional', commitShare: 0.5, checkShare: 0 } })
    expect(checkScenario(t.scenario, t.topology)).toEqual([])
  })

  it('consumes an ordered workload orderly and sends it by key, with the policy the lane sets', () => {
    const o = base({
      workload: {
        messages: 'ordered',
        lanes: ['remoting', { lane: 'remoting', name: 'rr', client: { orderPolicy: 'reroute' } }]
      }
    })
    expect(o.scenario.client.orderPolicy).toBe('wait')
    expect(orderKeysOf(o.scenario.workload)).toBe(16)
    expect(orderKeysOf(base({}).scenario.workload)).toBe(0)
    const plans = planClients(o.scenario, o.topology)
    expect(new Set(plans.map((p) => p.laneName))).toEqual(new Set(['remoting', 'rr']))
    expect(plans.find((p) => p.laneName === 'rr')!.tuning).toEqual({ orderPolicy: 'reroute' })
  })

  it('runs a delayed workload on brokers with the timer wheel, and leaves others as drawn', () => {
    expect(base({ workload: { messages: 'delayed' } }).topology.settings.timerWheel).toBe(true)
    expect(base({}).topology.settings.timerWheel).toBe(false)
  })

  it('with workload.lanes, plans every client once per lane on its own topic and group', () => {
    const l = base(
      { workload: { lanes: ['remoting', 'grpc'], rooms: { room1: { producers: 1 } } } },
      'two-rooms-proxies'
    )
    expect(
      planClients(l.scenario, l.topology).map((c) => `${c.id}:${c.lane}:${c.topic}:${c.group}`)
    ).toEqual([
      'producer-room1-1-remoting:remoting:orders-remoting:orders-producer-remoting',
      'consumer-room1-1-remoting:remoting:orders-remoting:orders-consumer-remoting',
      'producer-room1-1-grpc:grpc:orders-grpc:orders-producer-grpc',
      'consumer-room1-1-grpc:grpc:orders-grpc:orders-consumer-grpc'
    ])
  })

  it('runs named variants of one lane side by side, each with its own client settings', () => {
    const l = base({
      client: { requestTimeout: '300ms' },
      workload: {
        rooms: { room1: { producers: 1, consumers: 0 } },
        lanes: ['remoting', { lane: 'remoting', name: 'remoting-hedged', client: { hedge: true } }]
      }
    })
    const plans = planClients(l.scenario, l.topology)
    expect(plans.map((c) => `${c.id}:${c.lane}:${c.topic}`)).toEqual([
      'producer-room1-1-remoting:remoting:orders-remoting',
      'producer-room1-1-remoting-hedged:remoting:orders-remoting-hedged'
    ])
    const ctx = {
      plan: resolveRunPlan({ loaded: l, runId: 1, kind: 'session' }),
      endpoints: { managementNodes: [], nameServers: [] }
    } as unknown as RunContext
    // The variant's settings go over the scenario's; what it does not name stays the scenario's.
    expect(specOf(plans[0]!, ctx).tuning).toMatchObject({ hedge: false, requestTimeoutMs: 300 })
    expect(specOf(plans[1]!, ctx).tuning).toMatchObject({ hedge: true, requestTimeoutMs: 300 })
    expect(() =>
      base({ workload: { lanes: ['remoting', { lane: 'java', name: 'remoting' }] } })
    ).toThrow(/workload.lanes: "remoting" appears twice/)
  })

  it("gives each lane its own request cap when the scenario sets none, and the scenario's when it does", () => {
    const specs = (client: Record<string, unknown>) => {
      const l = base({
        client,
        workload: {
          rooms: { room1: { producers: 1, consumers: 0 } },
          lanes: ['remoting', 'java-dr']
        }
      })
      const ctx = {
        plan: resolveRunPlan({ loaded: l, runId: 1, kind: 'session' }),
        endpoints: { managementNodes: [], nameServers: [] }
      } as unknown as RunContext
      return planClients(l.scenario, l.topology).map((p) => specOf(p, ctx).tuning.requestTimeoutMs)
    }
    expect(specs({})).toEqual([400, 1000])
    expect(specs({ requestTimeout: '700ms' })).toEqual([700, 700])
  })

  it('gives each transactional producer a group of its own, so check-backs reach the one that ran it', () => {
    const specs = (messages: 'normal' | 'transactional') => {
      const l = base({ workload: { messages } })
      const ctx = {
        plan: resolveRunPlan({ loaded: l, runId: 1, kind: 'session' }),
        endpoints: { managementNodes: [], nameServers: [] },
        startOffsets: new Map()
      } as unknown as RunContext
      return planClients(l.scenario, l.topology).map((p) => `${p.id}:${specOf(p, ctx).group}`)
    }
    expect(specs('transactional')).toEqual([
      'producer-1:orders-producer-producer-1',
      'consumer-1:orders-consumer',
      'producer-2:orders-producer-producer-2',
      'consumer-2:orders-consumer'
    ])
    expect(specs('normal')).toEqual([
      'producer-1:orders-producer',
      'consumer-1:orders-consumer',
      'producer-2:orders-producer',
      'consumer-2:orders-consumer'
    ])
  })

  it('uses the topology clients unless workload.rooms says otherwise', () => {
    const l = base({})
    expect(planClients(l.scenario, l.topology).map((c) => `${c.role}:${c.id}@${c.room}`)).toEqual([
      'producer:producer-1@room1',
      'consumer:consumer-1@room1',
      'producer:producer-2@room2',
      'consumer:consumer-2@room2'
    ])
    const w = base({ workload: { rate: 5, rooms: { room1: { producers: 2, consumers: 0 } } } })
    const plans = planClients(w.scenario, w.topology)
    expect(plans.map((c) => c.id)).toEqual(['producer-room1-1', 'producer-room1-2'])
    expect(plans[0]).toMatchObject({ topic: 'orders', group: 'orders-producer', rate: 5 })
  })

  it('lets timelines target servers and clients by selector', () => {
    const l = base({})
    const nodes = targetNodes(l.topology, planClients(l.scenario, l.topology))
    expect(nodes.filter((n) => n.room === 'room1').map((n) => `${n.kind}:${n.id}`)).toEqual([
      'nameserver:ns-1',
      'broker:broker-1',
      'management:mgmt-1',
      'producer:producer-1',
      'consumer:consumer-1'
    ])
  })

  it('rejects bad selectors, pausing a client, late steps and unknown rooms, naming each', () => {
    try {
      base({
        workload: { duration: '5s', rooms: { room9: { producers: 1 } } },
        timeline: [
          { at: '1s', action: 'kill', target: 'all toasters of room1' },
          { at: '1s', action: 'pause', target: 'consumers of room1' },
          { at: '9s', action: 'kill', target: 'broker-1' }
        ]
      })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ScenarioFileError)
      const p = (e as ScenarioFileError).problems.join('\n')
      expect(p).toContain('workload.rooms.room9')
      expect(p).toContain('timeline[0].target')
      expect(p).toContain('after the workload ends')
      expect(p).toContain('no producer')
    }
  })

  it('reports unknown keys together with the topology and selector problems, all at once', () => {
    let error: unknown
    try {
      base({
        workload: { duration: '5s', messsages: 'ordered' },
        timeline: [{ at: '1s', action: 'kill', target: 'all toasters of room1' }],
        gates: { maxRtoMS: 100 }
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ScenarioFileError)
    const { problems, message } = error as ScenarioFileError
    expect(problems).toEqual([
      'workload.messsages: unknown key "messsages"; did you mean "messages"?',
      'gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?',
      expect.stringMatching(/^timeline\[0\]\.target: /)
    ])
    expect(message).toContain(
      '<scenario> is not a runnable scenario:\n  - workload.messsages: unknown key'
    )
    expect(message).toContain(
      '\n  - gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?'
    )
  })

  it('stops at problems that leave no scenario to check, naming each', () => {
    expect(() =>
      base({ timeline: [{ at: '1s', action: 'kil', target: 'broker-1' }], gates: { maxRtoMS: 1 } })
    ).toThrow(
      /timeline\[0\]\.action: "kil" is not an action; node actions: .* \(did you mean "kill"\?\)\n {2}- gates\.maxRtoMS: /
    )
  })

  it('explains unknown topologies and bad YAML', () => {
    expect(() =>
      parseScenario('name: t\ntopology: nowhere-rooms', { baseDir: ROOT, resourcesDir: RESOURCES })
    ).toThrow(/cannot read/)
    expect(() => parseScenario('name: [', { baseDir: ROOT })).toThrow(/YAML syntax/)
    expect(() => parseScenario('topology: two-rooms', { baseDir: ROOT })).toThrow(/name/)
  })

  it('checkScenario accepts the built-in ones', () => {
    const l = base({ timeline: [{ at: '1s', action: 'kill', target: 'consumers of room1' }] })
    expect(checkScenario(l.scenario, l.topology)).toEqual([])
  })

  it('knows how to restore each node state', () => {
    expect(
      ['up', 'paused', 'killed', 'stopped', 'down', 'failed', 'attached', 'starting'].map(
        restoreAction
      )
    ).toEqual([null, 'resume', 'start', 'start', 'start', 'start', null, null])
  })
})

/** A report with nothing in it, for scorecard sections to be added to. */
const emptyReport = (scenario: string, topology: string) => ({
  kind: 'drstudio/scenario-report' as const,
  version: 1 as const,
  scenario,
  topology,
  runId: 8,
  passed: true,
  topic: 't',
  consumerGroup: 'g',
  startedAt: '',
  endedAt: '',
  originMs: 0,
  timings: { setupMs: 1, settleMs: 1, workloadMs: 1, drainMs: 1, totalMs: 4 },
  totals: { sent: 0, acked: 0, failed: 0, consumed: 0, lost: 0, duplicates: 0 },
  gates: [],
  clients: [],
  failovers: [],
  selections: [],
  faults: [],
  notes: []
})

describe('formatScorecard', () => {
  it('prints verdict, gates, clients and grouped failovers', () => {
    const r: ScenarioReport = {
      kind: 'drstudio/scenario-report',
      version: 1,
      scenario: 's',
      topology: 'two-rooms',
      runId: 7,
      passed: false,
      topic: 'orders-r7',
      consumerGroup: 'g-r7',
      startedAt: '',
      endedAt: '',
      originMs: 0,
      timings: { setupMs: 1, settleMs: 1, workloadMs: 15000, drainMs: 5, totalMs: 16000 },
      totals: { sent: 10, acked: 10, failed: 0, consumed: 10, lost: 0, duplicates: 0 },
      gates: [{ name: 'max producer RTO (ms)', passed: false, actual: 1200, limit: 1000 }],
      clients: [
        {
          id: 'p1',
          room: 'room1',
          role: 'producer',
          sent: 10,
          acked: 10,
          failed: 0,
          consumed: 0,
          lost: 0,
          duplicates: 0,
          rtoMs: [1200, null]
        }
      ],
      failovers: [
        {
          atMs: 5000,
          clientId: 'p1',
          kind: 'broker',
          fromRoom: 'room1',
          toRoom: 'room2',
          reason: 'timeout',
          durationMs: 400
        },
        {
          atMs: 5001,
          clientId: 'p1',
          kind: 'broker',
          fromRoom: 'room1',
          toRoom: 'room2',
          reason: 'timeout',
          durationMs: 410
        }
      ],
      selections: [],
      faults: [
        {
          atMs: 5000,
          action: 'pause',
          target: ['all brokers of room1'],
          nodes: ['broker-1'],
          ok: true
        }
      ],
      notes: ['n']
    }
    const text = formatScorecard(r)
    expect(text).toContain('scenario s on two-rooms (run 7): FAILED')
    expect(text).toContain('FAIL  max producer RTO (ms): 1200 (limit 1000)')
    expect(text).toContain('1.20 s never')
    expect(text).toContain('p1 broker room1 → room2  ×2  (timeout; worst 410 ms)')
    expect(text).toContain('pause broker-1')
    // Duplicates by cause once the report has the split; a report without it prints the total.
    expect(text).toContain('lost 0, duplicates 0\n')
    const split = formatScorecard({
      ...r,
      totals: { ...r.totals, duplicates: 3, storedAgain: 2, redelivered: 1 }
    })
    expect(split).toContain('duplicates 3 (2 stored twice by retried sends, 1 redelivered)')
  })

  it('prints the delayed-message figures, naming the latest deliveries when some came late', () => {
    // The controller test's report below, delayed instead of controller mode.
    const r = reportSchema.parse({
      ...emptyReport('d', 'two-rooms'),
      totals: { sent: 3, acked: 3, failed: 0, consumed: 2, lost: 1, duplicates: 0 },
      delayed: {
        mechanism: 'timer',
        delayMs: 5000,
        precisionMs: 1000,
        acked: 3,
        delivered: 2,
        neverDelivered: 1,
        early: 0,
        duplicates: 0,
        storedAgain: 0,
        latenessMs: { p50: 200, p99: 8000, max: 8100 },
        latest: [{ key: 'p-9', brokerRoom: 'room1', latenessMs: 8100 }]
      }
    })
    const text = formatScorecard(r)
    expect(text).toContain('due 5.00 s after each send')
    expect(text).toContain('2 of 3 acknowledged delivered, 1 never, 0 early')
    expect(text).toContain('p50 200 ms, p99 8.00 s, max 8.10 s')
    expect(text).toContain('latest: p-9 8.10 s (room1)')
  })

  it('prints the order figures per lane, naming keys that went out of order', () => {
    const lane = {
      lane: 'remoting',
      orderPolicy: 'wait',
      keys: 32,
      acked: 500,
      delivered: 500,
      violations: 0,
      violatedKeys: [],
      violatedKeyCount: 0,
      reroutes: 0,
      reroutedKeyCount: 0,
      maxStallMs: 4200,
      stall: { brokerName: 'broker-a', queueId: 2, fromMs: 6010 }
    }
    const r = reportSchema.parse({
      ...emptyReport('o', 'two-rooms'),
      order: {
        orderKeys: 16,
        lanes: [
          lane,
          {
            ...lane,
            lane: 'remoting-reroute',
            orderPolicy: 'reroute',
            violations: 3,
            violatedKeys: ['producer-1:k4'],
            violatedKeyCount: 1,
            reroutes: 60,
            reroutedKeyCount: 16
          }
        ]
      }
    })
    const text = formatScorecard(r)
    expect(text).toContain('ordered messages: 16 keys per producer')
    expect(text).toMatch(/remoting\s+wait\s+32\s+500\s+0\s+0\s+4\.20 s\s+broker-a#2 \(6\.01 s\)/)
    expect(text).toMatch(/remoting-reroute\s+reroute\s+32\s+500\s+3 \(1 keys\)\s+60 \(16 keys\)/)
    expect(text).toContain('remoting-reroute keys out of order: producer-1:k4')
  })

  it('prints the fail-back: duplicates on each side of the first repair, and the rewinds', () => {
    const r = reportSchema.parse({
      ...emptyReport('f', 'two-rooms'),
      failback: {
        repairAtMs: 10_000,
        duplicatesBeforeRepair: 1,
        duplicatesAfterRepair: 30,
        rewinds: 1,
        rewoundQueues: [
          {
            lane: 'java',
            brokerName: 'broker-a',
            queueId: 2,
            rewinds: 1,
            maxBack: 30,
            firstAtMs: 13_500
          }
        ],
        lanes: [{ lane: 'java', duplicatesBeforeRepair: 1, duplicatesAfterRepair: 30, rewinds: 1 }]
      }
    })
    const text = formatScorecard(r)
    expect(text).toContain(
      "fail-back: first repair at 10.00 s; duplicates 1 before it (the failover's), 30 after it (the fail-back's); 1 queue offset rewind(s)"
    )
    expect(text).toContain('  java: duplicates 1 before, 30 after; 1 rewind(s)')
    expect(text).toContain(
      'java broker-a#2: 1 rewind(s), up to 30 message(s) back, first at 13.50 s'
    )
    // A run that repaired nothing and never read back says nothing about it.
    const quiet = reportSchema.parse({
      ...emptyReport('q', 'two-rooms'),
      failback: {
        repairAtMs: null,
        duplicatesBeforeRepair: 0,
        duplicatesAfterRepair: 0,
        rewinds: 0,
        rewoundQueues: []
      }
    })
    expect(formatScorecard(quiet)).not.toContain('fail-back')
  })

  it('prints each takeover of a controller-mode group: the new master, or why there was none', () => {
    const takeover = {
      group: 'broker-a',
      atMs: 5000,
      fault: 'kill',
      master: 'broker-a-1',
      masterRoom: 'room1',
      inSync: ['broker-a-1'],
      to: null,
      toRoom: null,
      afterMs: null,
      reason: 'no replica in the SyncStateSet of broker-a when its master broker-a-1 was killed'
    }
    const r = {
      ...emptyReport('s', 'three-rooms-controller'),
      passed: false,
      controller: {
        rpo: {
          lostWithOldMaster: 0,
          neverConsumed: 0,
          unreplicatedAtFault: 0,
          unknownQueues: 0,
          note: ''
        },
        groups: [],
        leaderChanges: 0,
        elections: [],
        takeovers: [
          takeover,
          { ...takeover, atMs: 9000, to: 'broker-a-3', toRoom: 'room3', afterMs: 420, reason: null }
        ]
      }
    } satisfies ScenarioReport
    const text = formatScorecard(r)
    expect(text).toContain(
      '  5.00 s  broker-a: master broker-a-1 (room1) kill → no new master: no replica in the SyncStateSet of broker-a when its master broker-a-1 was killed'
    )
    expect(text).toContain(
      '  9.00 s  broker-a: master broker-a-1 (room1) kill → broker-a-3 (room3) after 420 ms'
    )
  })
})

/** The part of a run's context a restore reads: the cluster, a clock, a signal, the ready timeout. */
function restoreCtx(
  cluster: unknown,
  clock: { now: () => number } = { now: () => Date.now() },
  readyTimeoutMs = 90_000
): RunContext {
  return {
    cluster,
    clock,
    signal: new AbortController().signal,
    readyTimeoutMs
  } as unknown as RunContext
}

/** Room-1 brokers in the given states, as a cluster's status lists them. */
const brokersIn = (states: Record<string, string>) =>
  Object.entries(states).map(([nodeId, state]) => ({
    nodeId,
    kind: 'broker',
    room: 'room1',
    state
  }))

describe('restore', () => {
  it('waits for nodes still booting before restoring the rest', async () => {
    const states: Record<string, string> = { 'proxy-1': 'starting', 'broker-1': 'killed' }
    const acted: string[] = []
    let polls = 0
    const cluster = {
      status: () => {
        if (++polls === 3) states['proxy-1'] = 'up'
        return {
          nodes: Object.entries(states).map(([nodeId, state]) => ({
            nodeId,
            kind: nodeId.split('-')[0]!,
            room: 'room1',
            state
          }))
        }
      },
      act: async (id: string, action: string) => {
        acted.push(`${action} ${id} (proxy-1 ${states['proxy-1']})`)
        states[id] = 'up'
      }
    }
    const notes = await restoreNodes(restoreCtx(cluster))
    expect(notes).toEqual([])
    expect(acted).toEqual(['start broker-1 (proxy-1 up)'])
  })

  it('waits for controller-mode replicas to get ready, before and after starting the rest', async () => {
    // broker-a-2 is still syncing from a restart in the workload; broker-a-1 was killed and comes
    // back electing, then syncs: setup goes on only once both are up (or the timeout says so).
    const states: Record<string, string> = { 'broker-a-2': 'syncing', 'broker-a-1': 'killed' }
    const seen: string[] = []
    let polls = 0
    const cluster = {
      status: () => {
        polls++
        if (polls === 3) states['broker-a-2'] = 'up'
        if (states['broker-a-1'] === 'electing' && polls > 6) states['broker-a-1'] = 'syncing'
        if (states['broker-a-1'] === 'syncing' && polls > 9) states['broker-a-1'] = 'up'
        seen.push(`${states['broker-a-1']}/${states['broker-a-2']}`)
        return { nodes: brokersIn(states) }
      },
      act: async (id: string) => {
        expect(states['broker-a-2']).toBe('up')
        states[id] = 'electing'
      }
    }
    const notes = await restoreNodes(restoreCtx(cluster))
    expect(notes).toEqual([])
    expect(states).toEqual({ 'broker-a-2': 'up', 'broker-a-1': 'up' })
    expect(seen).toContain('electing/up')
    expect(seen).toContain('syncing/up')
  })

  it('before the drain, waits only until a restarted replica answers, not until it is in sync', async () => {
    const states: Record<string, string> = { 'broker-a-1': 'killed', 'broker-a-2': 'syncing' }
    let polls = 0
    const cluster = {
      status: () => {
        polls++
        if (states['broker-a-1'] === 'starting' && polls > 4) states['broker-a-1'] = 'syncing'
        return { nodes: brokersIn(states) }
      },
      act: async (id: string) => {
        states[id] = 'starting'
      }
    }
    const notes = await restoreNodes(restoreCtx(cluster), 'answering')
    expect(notes).toEqual([])
    // Both still syncing: the drain reads from a replica that answers.
    expect(states).toEqual({ 'broker-a-1': 'syncing', 'broker-a-2': 'syncing' })
    expect(polls).toBeGreaterThan(4)
  })

  it('notes a replica that did not get ready in time, naming its state', async () => {
    const cluster = {
      status: () => ({
        nodes: [{ nodeId: 'broker-a-1', kind: 'broker', room: 'room1', state: 'syncing' }]
      }),
      act: async () => undefined
    }
    let t = 0
    const notes = await restoreNodes(restoreCtx(cluster, { now: () => (t += 100) }, 250))
    expect(notes).toEqual(['still not ready after the ready timeout: broker-a-1 (syncing)'])
  })
})
