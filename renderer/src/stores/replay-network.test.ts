import { beforeEach, describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { canvasLinks, linkAriaLabel } from '../model/network-links'
import { useEditorStore } from './editor-store'
import { useReplayStore } from './replay-store'

const T0 = 1_700_000_000_000
const at = (s: number) => T0 + s * 1000
let id = 0
const row = (s: number, kind: string, data: object) => ({
  id: ++id,
  atMs: at(s),
  kind,
  clientId: null,
  room: null,
  data
})
/** The rows the engine writes for a network fault: the `fault` row and its `network-fault` twin. */
function networkFault(s: number, network: Record<string, unknown>, twin: object) {
  return [
    row(s, 'fault', {
      action: network.action,
      target: [network.target, network.peer].filter(Boolean),
      nodes: [network.target, network.peer].filter(Boolean),
      ok: true,
      network
    }),
    row(s, 'network-fault', { ok: true, ...twin })
  ]
}
const events = [
  row(0, 'phase', { phase: 'workload' }),
  ...networkFault(
    5,
    { action: 'partition', target: 'room1', peer: 'room2', direction: 'to', mode: 'reject' },
    { action: 'partition', target: ['room1'], peer: ['room2'] }
  ),
  ...networkFault(
    8,
    {
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      direction: 'both',
      latencyMs: 40,
      jitterMs: 0
    },
    { action: 'delay', target: ['room1'], peer: ['room2'], delayMs: 40, jitterMs: 0 }
  ),
  row(12, 'fault', {
    action: 'heal',
    target: ['room1'],
    nodes: ['room1'],
    ok: true,
    network: { action: 'heal', target: 'room1' }
  }),
  row(12, 'network-heal', { target: ['room1'] }),
  row(20, 'phase', { phase: 'drain' })
]

function engine(): RawBridge {
  return {
    transport: 'offline',
    connection: 'open',
    async invoke(channel) {
      if (channel !== 'runs:get') throw new Error(`unexpected ${channel}`)
      return {
        run: {
          id: 9,
          kind: 'scenario',
          topologyName: 'two-rooms',
          scenarioName: 'net',
          startedAt: T0,
          endedAt: at(20),
          verdict: 'passed'
        },
        report: null,
        events,
        counters: [],
        topology: twoRoomsJson,
        nextAfterId: null
      }
    },
    on: () => () => {},
    onConnection: () => () => {}
  }
}

const replay = () => useReplayStore.getState()
const link = () => {
  const doc = useEditorStore.getState().history.present
  const [l] = canvasLinks({
    rooms: doc.rooms.map((r) => r.id),
    network: doc.network,
    running: false,
    status: null,
    replay: replay().linkFaults
  })
  return linkAriaLabel(l!)
}

describe('replayed network faults on the links', () => {
  beforeEach(() => {
    initBridge(engine())
    useEditorStore.getState().load(topologySchema.parse(twoRoomsJson), { path: null })
    replay().close()
  })

  it('draws the one-way cut with its mode, the delay over it, and the link whole after the heal', async () => {
    await replay().open(9)
    replay().seek(at(3))
    expect(link()).toBe('Network link room1 ~ room2 (replay): both ways 0 ms')
    replay().seek(at(6))
    expect(link()).toBe(
      'Network link room1 ~ room2 (replay): room1 → room2 cut (reject); room2 → room1 0 ms; configured 0 ms'
    )
    replay().seek(at(9))
    expect(link()).toBe(
      'Network link room1 ~ room2 (replay): room1 → room2 cut (reject); room2 → room1 40 ms; configured 0 ms'
    )
    replay().seek(at(13))
    expect(link()).toBe('Network link room1 ~ room2 (replay): both ways 0 ms')
    // Scrubbing back brings the faults back.
    replay().seek(at(6))
    expect(replay().linkFaults).toMatchObject([
      { action: 'partition', direction: 'to', mode: 'reject' }
    ])
    replay().close()
    expect(replay().linkFaults).toEqual([])
  })
})
