import { describe, expect, it } from 'vitest'
import threeRoomsControllerJson from '../../../resources/topologies/three-rooms-controller.json'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import { withCompleteLayout } from './document'
import type { ComponentFlowNode } from './flow-model'
import {
  buildFlowNodes,
  buildLiveEdges,
  effectiveNodeState,
  nodeAriaLabel,
  readinessNote,
  roomAriaLabel
} from './flow-model'
import { NODE_W } from './geometry'

const doc = () => withCompleteLayout(topologySchema.parse(twoRoomsJson))
const inputs = (selected: string[] = []) => ({
  selected: new Set(selected),
  problemCounts: new Map<string, number>()
})

describe('buildFlowNodes', () => {
  it('emits rooms first as parents, then members with relative positions and fixed size', () => {
    const nodes = buildFlowNodes(doc(), inputs())
    expect(nodes.slice(0, 2).map((n) => [n.id, n.type])).toEqual([
      ['room1', 'room'],
      ['room2', 'room']
    ])
    const broker = nodes.find((n) => n.id === 'broker-2') as ComponentFlowNode
    expect(broker).toMatchObject({
      type: 'component',
      parentId: 'room2',
      width: NODE_W,
      ariaRole: 'group'
    })
    expect(broker.data).toMatchObject({
      kind: 'broker',
      role: 'master',
      room: 'room2',
      subtitle: 'broker-b · master'
    })
    expect(nodes[0]!.ariaLabel).toBe('room room1 (Room 1), 5 nodes')
  })
  it('sizes rooms to contain their members', () => {
    const d = doc()
    d.layout!['consumer-1'] = { x: 900, y: 500 }
    const room = buildFlowNodes(d, inputs()).find((n) => n.id === 'room1')!
    expect(room.width).toBeGreaterThanOrEqual(900 + NODE_W)
    expect(room.height).toBeGreaterThan(500)
  })
  it('reuses unchanged node objects and replaces changed ones', () => {
    const d = doc()
    const first = buildFlowNodes(d, inputs())
    const second = buildFlowNodes(d, inputs(['ns-1']), first)
    expect(second.find((n) => n.id === 'broker-1')).toBe(first.find((n) => n.id === 'broker-1'))
    expect(second.find((n) => n.id === 'ns-1')).not.toBe(first.find((n) => n.id === 'ns-1'))
    expect(second.find((n) => n.id === 'ns-1')!.selected).toBe(true)
  })
  it('keeps React Flow ids unique when a file repeats an id', () => {
    const d = doc()
    d.rooms[1]!.brokers[0]!.id = 'broker-1'
    const ids = buildFlowNodes(d, inputs()).map((n) => n.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids).toContain('broker-1~2')
  })
  it('uses pending drag positions over the document', () => {
    const pending = new Map([['ns-1', { x: 333, y: 444 }]])
    const n = buildFlowNodes(doc(), { ...inputs(), pending }).find((x) => x.id === 'ns-1')!
    expect(n.position).toEqual({ x: 333, y: 444 })
  })
})

describe('aria labels', () => {
  it('says a controller-mode broker is a replica (its master is elected, not configured)', () => {
    const t = withCompleteLayout(topologySchema.parse(threeRoomsControllerJson))
    const broker = buildFlowNodes(t, inputs()).find(
      (n) => n.id === 'broker-a-1'
    ) as ComponentFlowNode
    expect(broker.data.role).toBe('replica')
    expect(nodeAriaLabel(broker.data, 'stopped')).toBe(
      'broker broker-a-1 (replica) in room1, state stopped'
    )
  })

  it('names kind, id, role, room, state and problems', () => {
    const data = {
      nodeId: 'broker-1',
      kind: 'broker' as const,
      room: 'room1',
      subtitle: '',
      role: 'master' as const,
      attached: false,
      problems: 0
    }
    expect(nodeAriaLabel(data, 'up')).toBe('broker broker-1 (master) in room1, state up')
    expect(
      nodeAriaLabel(
        { ...data, kind: 'nameserver', role: undefined as never, problems: 2 },
        'killed'
      )
    ).toBe('name server broker-1 in room1, state killed, 2 problems')
    expect(roomAriaLabel({ roomId: 'r', name: 'r', members: 1, problems: 0 })).toBe(
      'room r, 1 node'
    )
  })
})

describe('buildLiveEdges', () => {
  const rooms = new Map([
    ['producer-1', 'room1'],
    ['ns-1', 'room1'],
    ['broker-1', 'room1'],
    ['broker-2', 'room2']
  ])
  const roomOf = (id: string) => rooms.get(id)
  it('draws client → name server and client → broker, flagging cross-room', () => {
    const edges = buildLiveEdges(
      { 'producer-1': { clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'broker-2' } },
      roomOf
    )
    expect(edges.map((e) => [e.source, e.target, e.data!.crossRoom])).toEqual([
      ['producer-1', 'ns-1', false],
      ['producer-1', 'broker-2', true]
    ])
    expect(edges[1]!.ariaLabel).toBe('producer-1 uses broker broker-2, cross-room (room1 → room2)')
    expect(edges[0]!.ariaLabel).toContain('same room (room1)')
  })
  it('skips unknown nodes and keeps unchanged edge objects', () => {
    const first = buildLiveEdges(
      { 'producer-1': { clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'nope' } },
      roomOf
    )
    expect(first).toHaveLength(1)
    const second = buildLiveEdges(
      { 'producer-1': { clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'broker-1' } },
      roomOf,
      first
    )
    expect(second[0]).toBe(first[0])
    expect(second).toHaveLength(2)
    expect(buildLiveEdges({ ghost: { clientId: 'ghost', brokerId: 'broker-1' } }, roomOf)).toEqual(
      []
    )
  })
})

describe('readinessNote', () => {
  it('while a replica’s group is electing or syncing, says what it waits for instead of the design', () => {
    const detail = 'waiting for broker-a-2 to join the SyncStateSet of broker-a (now broker-a-1)'
    expect(readinessNote('syncing', { detail })).toEqual({ replaces: true, text: detail })
    expect(readinessNote('electing', { detail: 'waiting for x' })).toEqual({
      replaces: true,
      text: 'waiting for x'
    })
    expect(readinessNote('electing', {})).toBeUndefined()
  })

  it('once up, adds how long getting ready took', () => {
    expect(readinessNote('up', { readyInMs: 14_230, detail: 'broker-a ready…' })).toEqual({
      replaces: false,
      text: 'ready in 14.2 s'
    })
  })

  it('says nothing for other nodes and states', () => {
    expect(readinessNote('up', { detail: 'SIGCONT' })).toBeUndefined()
    expect(readinessNote('killed', { readyInMs: 1000 })).toBeUndefined()
    expect(readinessNote('starting', { detail: 'x' })).toBeUndefined()
    expect(readinessNote('up', undefined)).toBeUndefined()
  })
})

describe('effectiveNodeState', () => {
  it('uses the reported state, else derives a client state from its routing', () => {
    expect(effectiveNodeState('killed', true, true, true)).toBe('killed')
    expect(effectiveNodeState(undefined, false, true, false)).toBe('stopped')
    expect(effectiveNodeState(undefined, true, false, true)).toBe('stopped')
    expect(effectiveNodeState(undefined, true, true, false)).toBe('starting')
    expect(effectiveNodeState(undefined, true, true, true)).toBe('up')
  })
})
