import { beforeEach, describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import { replayKey } from '../components/replay-bar'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { useCanvasStore } from './canvas-store'
import { useEditorStore } from './editor-store'
import { useReplayStore } from './replay-store'

const T0 = 1_700_000_000_000
const run = {
  id: 4,
  kind: 'scenario',
  topologyName: 'two-rooms',
  scenarioName: 'broker-kill',
  startedAt: T0,
  endedAt: T0 + 30_000,
  verdict: 'passed'
}
const row = (id: number, s: number, kind: string, clientId: string | null, data: object) => ({
  id,
  atMs: T0 + s * 1000,
  kind,
  clientId,
  room: clientId ? 'room1' : null,
  data
})
const events = [
  row(1, 0, 'client-started', 'producer-1', { role: 'producer' }),
  row(2, 0.1, 'namesrv-choice', 'producer-1', { namesrvId: 'ns-1', namesrvRoom: 'room1' }),
  row(3, 0.2, 'broker-choice', 'producer-1', { brokerName: 'broker-a', brokerRoom: 'room1' }),
  row(4, 10, 'fault', null, {
    action: 'kill',
    target: ['broker-1'],
    nodes: ['broker-1'],
    ok: true
  }),
  row(5, 10.5, 'broker-failover', 'producer-1', {
    from: 'broker-a',
    fromRoom: 'room1',
    to: 'broker-b',
    toRoom: 'room2',
    durationMs: 500
  }),
  row(6, 20, 'phase', null, { phase: 'drain' })
]

/** An engine answering runs:get in pages of 4, as the real one does with afterId. */
function fakeEngine(calls: unknown[]): RawBridge {
  return {
    transport: 'offline',
    connection: 'open',
    async invoke(channel, payload) {
      calls.push([channel, payload])
      if (channel !== 'runs:get') throw new Error(`unexpected ${channel}`)
      const { afterId = 0 } = payload as { afterId?: number }
      const page = events.filter((e) => e.id > afterId).slice(0, 4)
      const more = events.some((e) => e.id > (page[page.length - 1]?.id ?? Infinity))
      return {
        run,
        report: null,
        events: page,
        counters: [],
        topology: { ...twoRoomsJson, name: 'two-rooms-recorded' },
        nextAfterId: more ? page[page.length - 1]!.id : null
      }
    },
    on: () => () => {},
    onConnection: () => () => {}
  }
}

const replay = () => useReplayStore.getState()
const edgeOf = (clientId: string) =>
  useCanvasStore.getState().edges.find((e) => e.id === `live:${clientId}:broker`)?.target

describe('replay store', () => {
  let calls: unknown[]
  beforeEach(() => {
    calls = []
    initBridge(fakeEngine(calls))
    useEditorStore.getState().load(topologySchema.parse(twoRoomsJson), { path: '/tmp/mine.json' })
    replay().close()
  })

  it('reads every page, shows the run topology, and starts at the first row', async () => {
    await replay().open(4)
    expect(calls).toEqual([
      ['runs:get', { id: 4, afterId: 0, limit: 5000 }],
      ['runs:get', { id: 4, afterId: 4, limit: 5000 }]
    ])
    expect(replay().active).toBe(true)
    expect(useEditorStore.getState().history.present.name).toBe('two-rooms-recorded')
    expect(replay().t).toBe(T0)
    expect(replay().markers.map((m) => m.kind)).toEqual(['fault', 'failover'])
  })

  it("moves producer-1's edge at the failover, and back when scrubbed back", async () => {
    await replay().open(4)
    replay().seek(T0 + 5000)
    expect(edgeOf('producer-1')).toBe('broker-1')
    expect(replay().nodeStates['broker-1']).toBe('up')
    replay().seek(T0 + 10_200)
    expect(replay().nodeStates['broker-1']).toBe('killed')
    expect(edgeOf('producer-1')).toBe('broker-1')
    replay().seek(T0 + 10_500)
    expect(edgeOf('producer-1')).toBe('broker-2')
    expect(replay().flashing.has('producer-1')).toBe(true)
    expect(replay().failovers).toHaveLength(1)
    replay().seek(T0 + 3000)
    expect(edgeOf('producer-1')).toBe('broker-1')
    expect(replay().failovers).toHaveLength(0)
  })

  it('steps, clamps to the run, and changes speed within 0.5×–8×', async () => {
    await replay().open(4)
    replay().step(-1)
    expect(replay().t).toBe(T0)
    replay().step(1)
    expect(replay().t).toBe(T0 + 1000)
    replay().seek(T0 + 999_999)
    expect(replay().t).toBe(T0 + 20_000)
    for (let i = 0; i < 6; i++) replay().faster()
    expect(replay().speed).toBe(8)
    for (let i = 0; i < 6; i++) replay().slower()
    expect(replay().speed).toBe(0.5)
    replay().setSpeed(3)
    expect(replay().speed).toBe(0.5)
  })

  it('exit puts the document back as it was, edges and all', async () => {
    const before = useEditorStore.getState().history
    await replay().open(4)
    replay().seek(T0 + 11_000)
    replay().close()
    expect(useEditorStore.getState().history).toBe(before)
    expect(useEditorStore.getState().filePath).toBe('/tmp/mine.json')
    expect(edgeOf('producer-1')).toBeUndefined()
  })
})

describe('replay keys', () => {
  it('maps Space, arrows, Home/End and +/- and nothing else', () => {
    expect(
      [' ', 'ArrowLeft', 'ArrowRight', 'Home', 'End', '+', '=', '-', 'a'].map(replayKey)
    ).toEqual(['toggle', 'back', 'forward', 'start', 'end', 'faster', 'faster', 'slower', null])
  })
})
