import { readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FailoverReport, LaneEntry, ScenarioReport } from '../../../common/scenario/schema'
import { scenarioSchema } from '../../../common/scenario/schema'
import { restoreAction } from './cluster'
import type { GateFacts } from './gates'
import { evaluateGates } from './gates'
import { loadScenarioFile, parseScenario, ScenarioFileError } from './load-scenario'
import { checkScenario, planClients, targetNodes } from './plan'
import { formatScorecard } from './scorecard'
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

describe('built-in scenarios', () => {
  const files = readdirSync(join(RESOURCES, 'scenarios')).filter((f) => f.endsWith('.yaml'))

  it('ships the six scenarios of the method, three of the gRPC lane, four of the links and four of controller mode', () => {
    expect(files.sort()).toEqual([
      'broker-cut-from-remote-ns.yaml',
      'controller-leader-and-master-kill.yaml',
      'controller-master-kill-async.yaml',
      'controller-master-kill.yaml',
      'controller-room1-isolated.yaml',
      'grpc-healthy.yaml',
      'grpc-room1-brokers-down.yaml',
      'grpc-room1-proxy-down.yaml',
      'healthy.yaml',
      'room1-broker-paused.yaml',
      'room1-brokers-and-namesrv-down.yaml',
      'room1-brokers-down.yaml',
      'room1-consumers-down.yaml',
      'room1-isolated.yaml',
      'room1-lossy.yaml',
      'room1-management-down.yaml',
      'wan-latency.yaml'
    ])
  })

  it.each(files)('%s loads against its topology and stays short', (f) => {
    const l = loadScenarioFile(join(RESOURCES, 'scenarios', f), { resourcesDir: RESOURCES })
    const grpc = f.startsWith('grpc-')
    const wan = f === 'wan-latency.yaml'
    const controller = f.startsWith('controller-')
    const async = f === 'controller-master-kill-async.yaml'
    expect(l.topology.name).toBe(
      grpc
        ? 'two-rooms-proxies'
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

  it.each(files)('%s runs its workload on the Java lanes too (no proxy needed)', (f) => {
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
      loaded: l,
      names: { topicOf: (t: string) => t, groupOf: (g: string) => g },
      endpoints: { managementNodes: [], nameServers: [] }
    } as unknown as RunContext
    // The variant's settings go over the scenario's; what it does not name stays the scenario's.
    expect(specOf(plans[0]!, ctx).tuning).toMatchObject({ hedge: false, requestTimeoutMs: 300 })
    expect(specOf(plans[1]!, ctx).tuning).toMatchObject({ hedge: true, requestTimeoutMs: 300 })
    expect(() =>
      base({ workload: { lanes: ['remoting', { lane: 'java', name: 'remoting' }] } })
    ).toThrow(/workload.lanes: "remoting" appears twice/)
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
  })
})

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
    const notes = await restoreNodes({
      cluster,
      clock: { now: () => Date.now() },
      signal: new AbortController().signal,
      readyTimeoutMs: 90_000
    } as unknown as RunContext)
    expect(notes).toEqual([])
    expect(acted).toEqual(['start broker-1 (proxy-1 up)'])
  })
})
