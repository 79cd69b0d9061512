import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { LedgerEvent } from '../../../common/scenario/events'
import { resolveRunPlan } from '../../../common/scenario/run-plan'
import type { DeliveryRecord, SendRecord } from '../ledger/types'
import type { WireRow } from '../worker-wire/protocol'
import { parseScenario } from '../scenario/load-scenario'
import { reasonLabel, RunMetrics } from './run-metrics'
import { checkMetrics } from './test-promtool'

const ROOT = resolve(import.meta.dirname, '../../..')

function plan(runId = 7) {
  const loaded = parseScenario(
    JSON.stringify({
      name: 'metrics',
      topology: 'two-rooms',
      workload: { lanes: ['remoting', 'java'] }
    }),
    { baseDir: ROOT, resourcesDir: join(ROOT, 'resources') }
  )
  return resolveRunPlan({ loaded, runId, kind: 'scenario' })
}

const send = (over: Partial<SendRecord>): SendRecord => ({
  key: 'k',
  clientId: 'producer-1-remoting',
  clientRoom: 'room1',
  namesrvId: 'ns-1',
  namesrvRoom: 'room1',
  brokerName: 'broker-a',
  brokerRoom: 'room1',
  queueId: 0,
  queueOffset: 0,
  startedAt: 1000,
  scheduledAt: 1000,
  attemptStartedAt: 1000,
  endedAt: 1004,
  status: 'acked',
  attempts: 1,
  error: null,
  ...over
})

const delivery = (key: string, brokerRoom: string): DeliveryRecord => ({
  key,
  clientId: 'consumer-2-remoting',
  clientRoom: 'room2',
  namesrvRoom: 'room2',
  brokerName: brokerRoom === 'room1' ? 'broker-a' : 'broker-b',
  brokerRoom,
  queueId: 0,
  queueOffset: 0,
  bornAt: 1000,
  deliveredAt: 1010
})

const attemptFailed = (reason: string, startMs: number, endMs: number): WireRow => ({
  k: 'e',
  kind: 'send-attempt-failed',
  clientId: 'producer-1-remoting',
  room: 'room1',
  atMs: endMs,
  data: { key: 'b', brokerName: 'broker-a', brokerRoom: 'room1', reason, startMs, endMs }
})

const event = <K extends LedgerEvent['kind']>(
  kind: K,
  data: Extract<LedgerEvent, { kind: K }>['data'],
  clientId: string | null = null
): LedgerEvent => ({ runId: 7, atMs: 0, kind, clientId, room: 'room1', data }) as LedgerEvent

async function value(m: RunMetrics, name: string, labels: Record<string, string>) {
  // A histogram's _count and _bucket series are values of the histogram, named by metricName.
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => name.startsWith(x.name))
  const hit = (metric?.values ?? []).find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? metric!.name) === name &&
      Object.entries(labels).every(([k, x]) => String(v.labels[k]) === x)
  )
  return hit?.value
}

describe('RunMetrics', () => {
  it('counts sends, failures, latency, cross-room share and the last recovery per producer', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    const c = { room: 'room1', client: 'producer-1-remoting', lane: 'remoting' }
    m.send(send({ key: 'a' }))
    m.rows([
      attemptFailed('refused', 2000, 2001),
      // A Java lane's free text is reduced to a few labels.
      attemptFailed('RemotingConnectException: connect to 127.0.0.1:28734 failed', 2100, 2102),
      // Acknowledged, but it was in flight before the failure ended: not a recovery.
      { k: 's', ...send({ key: 'x', startedAt: 1990, endedAt: 2050 }) }
    ])
    m.send(
      send({ key: 'b', status: 'failed', startedAt: 2000, attemptStartedAt: 2200, endedAt: 2500 })
    )
    m.send(
      send({
        key: 'c',
        brokerName: 'broker-b',
        brokerRoom: 'room2',
        startedAt: 2600,
        endedAt: 3200
      })
    )
    expect(
      await value(m, 'drstudio_sends_total', { ...c, status: 'acked', cross_room: 'false' })
    ).toBe(2)
    expect(
      await value(m, 'drstudio_sends_total', { ...c, status: 'acked', cross_room: 'true' })
    ).toBe(1)
    expect(await value(m, 'drstudio_sends_total', { ...c, status: 'failed' })).toBe(1)
    expect(
      await value(m, 'drstudio_send_attempt_failures_total', { ...c, reason: 'refused' })
    ).toBe(2)
    // From the first failed attempt (2000) to the next acknowledgement (3200).
    expect(await value(m, 'drstudio_last_rto_seconds', c)).toBe(1.2)
    expect(
      await value(m, 'drstudio_cross_room_share', { lane: 'remoting', direction: 'send' })
    ).toBeCloseTo(1 / 3)
    expect(await value(m, 'drstudio_send_latency_seconds_count', c)).toBe(3)
  })

  it('counts deliveries and duplicates per lane', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    m.delivery(delivery('a', 'room2'))
    m.delivery(delivery('b', 'room1'))
    m.delivery(delivery('a', 'room1'))
    const c = { room: 'room2', client: 'consumer-2-remoting', lane: 'remoting' }
    expect(await value(m, 'drstudio_deliveries_total', { ...c, cross_room: 'true' })).toBe(2)
    expect(await value(m, 'drstudio_duplicates_total', c)).toBe(1)
    expect(
      await value(m, 'drstudio_cross_room_share', { lane: 'remoting', direction: 'consume' })
    ).toBeCloseTo(2 / 3)
  })

  it('shows each broker’s last sampled CPU and send queue, keeping the last known of each', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    const b = { node: 'broker-2', room: 'room2' }
    m.event(event('broker-load', { nodeId: 'broker-2', room: 'room2', cpuPct: 42.5, sendQueue: 3 }))
    m.event(event('broker-load', { nodeId: 'broker-2', room: 'room2', cpuPct: null, sendQueue: 0 }))
    expect(await value(m, 'drstudio_broker_cpu_percent', b)).toBe(42.5)
    expect(await value(m, 'drstudio_broker_send_queue', b)).toBe(0)
  })

  it('keeps node states, masters and epochs, and faults active until repaired', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    expect(await value(m, 'drstudio_broker_master', { group: 'broker-a', node: 'broker-1' })).toBe(
      1
    )
    m.event(event('node-state', { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up' }))
    m.event(
      event('fault', {
        action: 'kill',
        target: ['room1'],
        nodes: ['broker-1'],
        ok: true,
        source: 'timeline'
      })
    )
    m.event(
      event('node-state', { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'killed' })
    )
    expect(await value(m, 'drstudio_node_state', { node: 'broker-1', state: 'killed' })).toBe(1)
    expect(await value(m, 'drstudio_node_state', { node: 'broker-1', state: 'up' })).toBe(0)
    expect(await value(m, 'drstudio_fault_active', { action: 'kill', target: 'room1' })).toBe(1)
    m.event(
      event('network-fault', {
        faultId: 'f1',
        action: 'partition',
        target: ['room1'],
        peer: ['room2']
      })
    )
    expect(
      await value(m, 'drstudio_fault_active', { action: 'partition', target: 'room1,room2' })
    ).toBe(1)
    m.event(event('node-state', { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up' }))
    m.event(event('network-heal', { faultId: 'f1' }))
    expect(await value(m, 'drstudio_fault_active', { action: 'kill', target: 'room1' })).toBe(0)
    expect(
      await value(m, 'drstudio_fault_active', { action: 'partition', target: 'room1,room2' })
    ).toBe(0)
    expect(await value(m, 'drstudio_faults_total', { action: 'kill', source: 'timeline' })).toBe(1)
    m.event(
      event('master-elected', {
        group: 'broker-a',
        from: 'broker-1',
        fromRoom: 'room1',
        to: 'broker-3',
        toRoom: 'room2',
        epoch: 2,
        toAddress: null
      })
    )
    expect(await value(m, 'drstudio_broker_master', { group: 'broker-a', node: 'broker-1' })).toBe(
      0
    )
    expect(await value(m, 'drstudio_broker_master', { group: 'broker-a', node: 'broker-3' })).toBe(
      1
    )
    expect(await value(m, 'drstudio_master_epoch', { group: 'broker-a' })).toBe(2)
  })

  it('counts replication between rooms from the brokers’ running totals, never going down, run by run', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    const r1r2 = { from_room: 'room1', to_room: 'room2' }
    const link = (fromRoom: string, toRoom: string, bytes: number) => ({
      fromRoom,
      toRoom,
      bytes,
      pairs: []
    })
    m.replication([
      link('room1', 'room2', 1000),
      link('room2', 'room1', 50),
      link('room1', 'room1', 7)
    ])
    m.replication([link('room1', 'room2', 4000)])
    expect(await value(m, 'drstudio_replication_bytes_total', r1r2)).toBe(4000)
    // A replica away: its bytes are not in the read, the counter keeps what it had...
    m.replication([link('room1', 'room2', 2500)])
    expect(await value(m, 'drstudio_replication_bytes_total', r1r2)).toBe(4000)
    // ...and grows again once the read passes it.
    m.replication([link('room1', 'room2', 4600)])
    expect(await value(m, 'drstudio_replication_bytes_total', r1r2)).toBe(4600)
    expect(
      await value(m, 'drstudio_replication_bytes_total', { from_room: 'room2', to_room: 'room1' })
    ).toBe(50)
    // Only between rooms: a replica in its master's room is not cross-room traffic.
    expect(
      await value(m, 'drstudio_replication_bytes_total', { from_room: 'room1', to_room: 'room1' })
    ).toBeUndefined()
    m.begin(plan(8))
    m.replication([link('room1', 'room2', 300)])
    expect(await value(m, 'drstudio_replication_bytes_total', r1r2)).toBe(300)
  })

  it('starts each run clean, naming it; its exposition passes promtool check metrics', async () => {
    const m = new RunMetrics()
    m.begin(plan(7))
    m.send(send({}))
    m.begin(plan(8))
    expect(await value(m, 'drstudio_sends_total', { status: 'acked' })).toBeUndefined()
    expect(await value(m, 'drstudio_run_info', { run_id: '8', scenario: 'metrics' })).toBe(1)
    expect(await value(m, 'drstudio_run_info', { run_id: '7' })).toBeUndefined()
    m.send(send({}))
    m.delivery(delivery('k', 'room1'))
    const text = await m.registry.metrics()
    const check = checkMetrics(text)
    expect(check, check.output).toMatchObject({ ok: true })
    // The check can fail: a duplicate series is refused.
    expect(checkMetrics(`${text}${text}`).ok).toBe(false)
    m.end()
    expect(await value(m, 'drstudio_run_info', { run_id: '8' })).toBeUndefined()
  })

  it('ends faults by their repair or heal, not by any heal, and keeps a fault whose heal failed', async () => {
    const m = new RunMetrics()
    m.begin(plan())
    const active = (action: string, target: string) =>
      value(m, 'drstudio_fault_active', { action, target })
    const client = ['producer-1-remoting']
    m.event(event('fault', { action: 'kill', target: client, nodes: client, ok: true }))
    m.event(
      event('fault', {
        action: 'observed-down',
        target: ['broker-2'],
        nodes: ['broker-2'],
        ok: true,
        source: 'observed'
      })
    )
    m.event(
      event('network-fault', { action: 'partition', target: ['room1'], peer: ['room2'], ok: true })
    )
    m.event(
      event('network-fault', { action: 'delay', target: ['room1'], peer: ['room3'], ok: true })
    )
    m.event(event('network-fault', { action: 'loss', target: ['room2'], ok: false }))
    expect(await active('loss', 'room2')).toBeUndefined()
    // Clients have no node states: their restart ends the kill.
    m.event(event('fault', { action: 'restart', target: client, nodes: client, ok: true }))
    expect(await active('kill', 'producer-1-remoting')).toBe(0)
    m.event(
      event('fault', {
        action: 'observed-up',
        target: ['broker-2'],
        nodes: ['broker-2'],
        ok: true,
        source: 'observed'
      })
    )
    expect(await active('observed-down', 'broker-2')).toBe(0)
    m.event(event('network-heal', { target: ['room1'], peer: ['room3'], reason: 'nft: busy' }))
    expect(await active('delay', 'room1,room3')).toBe(1)
    m.event(event('network-heal', { target: ['room1'], peer: ['room3'] }))
    expect([
      await active('delay', 'room1,room3'),
      await active('partition', 'room1,room2')
    ]).toEqual([0, 1])
    m.event(event('network-heal', {}))
    expect(await active('partition', 'room1,room2')).toBe(0)
  })
})

describe('reasonLabel', () => {
  it("keeps our lane's words and folds free text into a few", () => {
    expect(
      [
        'timeout',
        'refused',
        'RemotingTooMuchRequestException: sendDefaultImpl call timeout',
        'send request to </127.0.0.1:28734> failed: Connection reset',
        'CODE: 14  DESC: service not available',
        'DEADLINE_EXCEEDED',
        'something else entirely'
      ].map(reasonLabel)
    ).toEqual(['timeout', 'refused', 'timeout', 'reset', 'code-14', 'timeout', 'other'])
  })
})
