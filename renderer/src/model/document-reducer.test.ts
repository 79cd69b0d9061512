import { describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import type { Topology } from '../../../common/topology'
import { findNode, listNodes, topologySchema, validateTopology } from '../../../common/topology'
import type { DocAction } from './document-reducer'
import { copyFragment, documentReducer, uniqueBrokerName } from './document-reducer'
import { emptyTopology, withCompleteLayout } from './document'
import { roomRects } from './geometry'
import { createHistory, undo, redo, withHistory } from './history'

const twoRooms = (): Topology => withCompleteLayout(topologySchema.parse(twoRoomsJson))
const run = (doc: Topology, ...actions: DocAction[]) => actions.reduce(documentReducer, doc)
const ids = (doc: Topology) => listNodes(doc).map((n) => n.id)

describe('add-room', () => {
  it('adds an empty room with the next free id, a name and a position right of the others', () => {
    const doc = twoRooms()
    const next = run(doc, { type: 'add-room' })
    expect(next.rooms.map((r) => r.id)).toEqual(['room1', 'room2', 'room3'])
    expect(next.rooms[2]).toMatchObject({ name: 'Room 3', brokers: [], producers: [] })
    expect(next.layout!.room3!.x).toBeGreaterThan(next.layout!.room2!.x)
    expect(doc.rooms).toHaveLength(2)
  })
  it('uses a given id and position, and refuses a taken id', () => {
    const doc = twoRooms()
    expect(
      run(doc, { type: 'add-room', id: 'dc-east', position: { x: 5, y: 6 } }).layout!['dc-east']
    ).toEqual({ x: 5, y: 6 })
    expect(run(doc, { type: 'add-room', id: 'broker-1' })).toBe(doc)
  })
  it('starts a blank document at the origin', () => {
    const next = run(emptyTopology(), { type: 'add-room' })
    expect(next.rooms[0]!.id).toBe('room1')
    expect(next.layout!.room1).toEqual({ x: 0, y: 0 })
  })
})

describe('add-node', () => {
  it('adds each kind with schema-valid defaults and keeps the document valid', () => {
    let doc = twoRooms()
    for (const kind of ['nameserver', 'management', 'proxy', 'producer', 'consumer'] as const) {
      doc = run(doc, { type: 'add-node', kind, roomId: 'room1' })
    }
    doc = run(doc, { type: 'add-node', kind: 'broker', roomId: 'room2' })
    expect(ids(doc)).toEqual(
      expect.arrayContaining(['ns-3', 'mgmt-3', 'proxy-1', 'producer-3', 'consumer-3', 'broker-3'])
    )
    expect(validateTopology(doc)).toMatchObject({ ok: true })
    expect(findNode(doc, 'producer-3')!.spec).toMatchObject({
      topic: 'orders',
      group: 'orders-producer',
      rate: 10
    })
  })
  it('moves the rooms to the right when filling a room widens it, so rooms never overlap', () => {
    let doc = run(emptyTopology(), { type: 'add-room' }, { type: 'add-room' })
    const gap = doc.layout!.room2!.x - roomRects(doc).get('room1')!.width
    for (const kind of ['management', 'nameserver', 'broker'] as const) {
      doc = run(doc, { type: 'add-node', kind, roomId: 'room1' })
    }
    const rects = roomRects(doc)
    expect(rects.get('room2')!.x - (rects.get('room1')!.x + rects.get('room1')!.width)).toBe(gap)
    expect(doc.layout!.room2!.y).toBe(doc.layout!.room1!.y)
  })
  it('gives a new master a fresh brokerName in the existing cluster', () => {
    const doc = run(twoRooms(), { type: 'add-node', kind: 'broker', roomId: 'room1', id: 'b9' })
    expect(findNode(doc, 'b9')!.spec).toMatchObject({
      role: 'master',
      brokerId: 0,
      cluster: 'DrCluster',
      brokerName: 'broker-c'
    })
  })
  it('adds a slave of a chosen master with the next brokerId', () => {
    let doc = run(twoRooms(), {
      type: 'add-node',
      kind: 'broker',
      roomId: 'room2',
      id: 's1',
      masterId: 'broker-1'
    })
    doc = run(doc, {
      type: 'add-node',
      kind: 'broker',
      roomId: 'room2',
      id: 's2',
      masterId: 'broker-1'
    })
    expect(findNode(doc, 's1')!.spec).toMatchObject({
      role: 'slave',
      brokerName: 'broker-a',
      cluster: 'DrCluster',
      brokerId: 1
    })
    expect(findNode(doc, 's2')!.spec).toMatchObject({ brokerId: 2 })
    expect(findNode(doc, 's1')!.room).toBe('room2')
    expect(validateTopology(doc).ok).toBe(true)
  })
  it('places the node in a free slot of its kind row, or at a given (clamped) position', () => {
    const doc = twoRooms()
    const a = run(doc, { type: 'add-node', kind: 'broker', roomId: 'room1', id: 'x' })
    const b1 = a.layout!['broker-1']!
    expect(a.layout!.x!.y).toBe(b1.y)
    expect(a.layout!.x!.x).toBeGreaterThan(b1.x)
    const b = run(doc, {
      type: 'add-node',
      kind: 'nameserver',
      roomId: 'room1',
      id: 'y',
      position: { x: -50, y: 3 }
    })
    expect(b.layout!.y!.x).toBeGreaterThan(0)
    expect(b.layout!.y!.y).toBeGreaterThan(3)
  })
  it('ignores an unknown room or a taken id', () => {
    const doc = twoRooms()
    expect(run(doc, { type: 'add-node', kind: 'broker', roomId: 'nope' })).toBe(doc)
    expect(run(doc, { type: 'add-node', kind: 'broker', roomId: 'room1', id: 'room2' })).toBe(doc)
  })
  it('merges spec overrides but never lets them change the id', () => {
    const doc = run(twoRooms(), {
      type: 'add-node',
      kind: 'producer',
      roomId: 'room1',
      id: 'p',
      spec: { id: 'q', rate: 99 }
    })
    expect(findNode(doc, 'p')!.spec).toMatchObject({ rate: 99 })
    expect(findNode(doc, 'q')).toBeUndefined()
  })
})

describe('move-node-to-room', () => {
  it('moves the node into the other room with the given relative position', () => {
    const doc = run(twoRooms(), {
      type: 'move-node-to-room',
      nodeId: 'broker-1',
      roomId: 'room2',
      position: { x: 300, y: 120 }
    })
    expect(findNode(doc, 'broker-1')!.room).toBe('room2')
    expect(doc.rooms[0]!.brokers).toHaveLength(0)
    expect(doc.rooms[1]!.brokers.map((b) => b.id)).toEqual(['broker-2', 'broker-1'])
    expect(doc.layout!['broker-1']).toEqual({ x: 300, y: 120 })
  })
  it('picks a free slot without a position, and only repositions within the same room', () => {
    const doc = twoRooms()
    const moved = run(doc, { type: 'move-node-to-room', nodeId: 'producer-1', roomId: 'room2' })
    expect(moved.layout!['producer-1']).not.toEqual(moved.layout!['producer-2'])
    const same = run(doc, {
      type: 'move-node-to-room',
      nodeId: 'producer-1',
      roomId: 'room1',
      position: { x: 400, y: 400 }
    })
    expect(findNode(same, 'producer-1')!.room).toBe('room1')
    expect(same.layout!['producer-1']).toEqual({ x: 400, y: 400 })
    expect(run(doc, { type: 'move-node-to-room', nodeId: 'producer-1', roomId: 'room1' })).toBe(doc)
  })
  it('ignores unknown nodes and rooms', () => {
    const doc = twoRooms()
    expect(run(doc, { type: 'move-node-to-room', nodeId: 'zzz', roomId: 'room2' })).toBe(doc)
    expect(run(doc, { type: 'move-node-to-room', nodeId: 'broker-1', roomId: 'zzz' })).toBe(doc)
  })
})

describe('update-node', () => {
  it('patches fields and deletes those set to undefined', () => {
    let doc = run(twoRooms(), {
      type: 'update-node',
      nodeId: 'ns-1',
      patch: { host: '10.0.0.1', port: 9876 }
    })
    expect(findNode(doc, 'ns-1')!.spec).toEqual({ id: 'ns-1', host: '10.0.0.1', port: 9876 })
    doc = run(doc, { type: 'update-node', nodeId: 'ns-1', patch: { host: undefined } })
    expect(findNode(doc, 'ns-1')!.spec).toEqual({ id: 'ns-1', port: 9876 })
  })
  it('returns the same document for a no-op patch or an unknown node', () => {
    const doc = twoRooms()
    expect(run(doc, { type: 'update-node', nodeId: 'producer-1', patch: { rate: 20 } })).toBe(doc)
    expect(run(doc, { type: 'update-node', nodeId: 'nope', patch: { rate: 1 } })).toBe(doc)
    expect(run(doc, { type: 'update-node', nodeId: 'producer-1', patch: { id: 'other' } })).toBe(
      doc
    )
  })
  it('keeps brokerId consistent with the role', () => {
    let doc = run(twoRooms(), {
      type: 'update-node',
      nodeId: 'broker-2',
      patch: { role: 'slave', brokerName: 'broker-a' }
    })
    expect(findNode(doc, 'broker-2')!.spec).toMatchObject({ role: 'slave', brokerId: 1 })
    doc = run(doc, { type: 'update-node', nodeId: 'broker-2', patch: { role: 'master' } })
    expect(findNode(doc, 'broker-2')!.spec).toMatchObject({ role: 'master', brokerId: 0 })
  })
  it('takes slaves along when a master changes its group', () => {
    let doc = run(twoRooms(), {
      type: 'add-node',
      kind: 'broker',
      roomId: 'room2',
      id: 's1',
      masterId: 'broker-1'
    })
    doc = run(doc, {
      type: 'update-node',
      nodeId: 'broker-1',
      patch: { brokerName: 'orders-a', cluster: 'C2' }
    })
    expect(findNode(doc, 's1')!.spec).toMatchObject({ brokerName: 'orders-a', cluster: 'C2' })
    expect(findNode(doc, 'broker-2')!.spec).toMatchObject({
      brokerName: 'broker-b',
      cluster: 'DrCluster'
    })
    expect(validateTopology(doc).ok).toBe(true)
  })
})

describe('update-room and update-topology', () => {
  it('renames a room display name and clears it', () => {
    const doc = twoRooms()
    expect(
      run(doc, { type: 'update-room', roomId: 'room1', patch: { name: 'Shanghai' } }).rooms[0]!.name
    ).toBe('Shanghai')
    expect(
      run(doc, { type: 'update-room', roomId: 'room1', patch: { name: undefined } }).rooms[0]!.name
    ).toBeUndefined()
    expect(run(doc, { type: 'update-room', roomId: 'room1', patch: { name: 'Room 1' } })).toBe(doc)
    expect(run(doc, { type: 'update-room', roomId: 'nope', patch: { name: 'x' } })).toBe(doc)
  })
  it('patches name, description, settings and topics', () => {
    const doc = twoRooms()
    const next = run(doc, {
      type: 'update-topology',
      patch: {
        name: 'prod',
        settings: { selectionPolicy: 'random' },
        topics: [{ name: 't', queues: 8 }]
      }
    })
    expect(next.name).toBe('prod')
    expect(next.settings).toMatchObject({ selectionPolicy: 'random', probeIntervalMs: 1000 })
    expect(next.topics).toEqual([{ name: 't', queues: 8 }])
    expect(run(doc, { type: 'update-topology', patch: { name: 'two-rooms' } })).toBe(doc)
    expect(run(doc, { type: 'update-topology', patch: { settings: { zoneMode: false } } })).toBe(
      doc
    )
  })
})

describe('rename', () => {
  it('renames a node and its layout entry', () => {
    const doc = run(twoRooms(), { type: 'rename', from: 'broker-1', to: 'bj-broker' })
    expect(findNode(doc, 'bj-broker')).toBeDefined()
    expect(findNode(doc, 'broker-1')).toBeUndefined()
    expect(doc.layout!['bj-broker']).toBeDefined()
    expect(doc.layout!['broker-1']).toBeUndefined()
  })
  it('renames a room and every fallbackRooms reference to it', () => {
    let doc = run(twoRooms(), {
      type: 'update-node',
      nodeId: 'producer-1',
      patch: { fallbackRooms: ['room2'] }
    })
    doc = run(doc, { type: 'rename', from: 'room2', to: 'beijing' })
    expect(doc.rooms[1]!.id).toBe('beijing')
    expect(findNode(doc, 'producer-1')!.spec).toMatchObject({ fallbackRooms: ['beijing'] })
    expect(findNode(doc, 'producer-2')!.room).toBe('beijing')
    expect(doc.layout!.beijing).toBeDefined()
    expect(validateTopology(doc).ok).toBe(true)
  })
  it('refuses invalid, taken, unknown or identical ids', () => {
    const doc = twoRooms()
    for (const to of ['1abc', 'has space', 'broker-2', 'room1']) {
      expect(run(doc, { type: 'rename', from: 'broker-1', to })).toBe(doc)
    }
    expect(run(doc, { type: 'rename', from: 'nope', to: 'x' })).toBe(doc)
    expect(run(doc, { type: 'rename', from: 'broker-1', to: 'broker-1' })).toBe(doc)
  })
})

describe('delete', () => {
  it('deletes nodes and their layout', () => {
    const doc = run(twoRooms(), { type: 'delete', ids: ['broker-1', 'consumer-2'] })
    expect(ids(doc)).not.toContain('broker-1')
    expect(ids(doc)).not.toContain('consumer-2')
    expect(doc.layout!['broker-1']).toBeUndefined()
  })
  it('deletes a room with its members and drops references to it', () => {
    let doc = run(twoRooms(), {
      type: 'update-node',
      nodeId: 'producer-1',
      patch: { fallbackRooms: ['room2'] }
    })
    doc = run(doc, { type: 'delete', ids: ['room2'] })
    expect(doc.rooms.map((r) => r.id)).toEqual(['room1'])
    expect(ids(doc)).toEqual(['ns-1', 'broker-1', 'mgmt-1', 'producer-1', 'consumer-1'])
    expect(findNode(doc, 'producer-1')!.spec).toMatchObject({ fallbackRooms: [] })
    expect(doc.layout!.room2).toBeUndefined()
    expect(doc.layout!['broker-2']).toBeUndefined()
  })
  it('returns the same document when nothing matches', () => {
    const doc = twoRooms()
    expect(run(doc, { type: 'delete', ids: ['nope'] })).toBe(doc)
    expect(run(doc, { type: 'delete', ids: [] })).toBe(doc)
  })
})

describe('copy and paste', () => {
  it('copies loose nodes and whole rooms, members travelling with their room', () => {
    const doc = twoRooms()
    const f = copyFragment(doc, ['room2', 'broker-2', 'producer-1'])!
    expect(f.rooms.map((r) => r.room.id)).toEqual(['room2'])
    expect(f.nodes.map((n) => n.spec.id)).toEqual(['producer-1'])
    expect(copyFragment(doc, ['nope'])).toBeNull()
  })
  it('pastes nodes with fresh ids, offset, into the target room', () => {
    const doc = twoRooms()
    const f = copyFragment(doc, ['producer-1', 'ns-1'])!
    const next = run(doc, {
      type: 'paste',
      fragment: f,
      targetRoomId: 'room2',
      offset: { x: 24, y: 24 }
    })
    expect(findNode(next, 'producer-3')!.room).toBe('room2')
    expect(findNode(next, 'ns-3')!.room).toBe('room2')
    expect(next.layout!['producer-3']).toEqual({
      x: doc.layout!['producer-1']!.x + 24,
      y: doc.layout!['producer-1']!.y + 24
    })
    expect(validateTopology(next).ok).toBe(true)
  })
  it('pastes into the original room by default and gives copied masters a new group', () => {
    const doc = twoRooms()
    const next = run(doc, { type: 'paste', fragment: copyFragment(doc, ['broker-1'])! })
    expect(findNode(next, 'broker-3')).toMatchObject({ room: 'room1' })
    expect(findNode(next, 'broker-3')!.spec).toMatchObject({
      role: 'master',
      brokerName: 'broker-c'
    })
    expect(validateTopology(next).ok).toBe(true)
  })
  it('gives a pasted slave the next brokerId in its group and drops explicit endpoints', () => {
    let doc = run(twoRooms(), {
      type: 'add-node',
      kind: 'broker',
      roomId: 'room2',
      id: 's1',
      masterId: 'broker-1',
      spec: { host: '10.0.0.2', port: 10911 }
    })
    doc = run(doc, { type: 'paste', fragment: copyFragment(doc, ['s1'])! })
    const copy = listNodes(doc).find(
      (n) => n.id !== 's1' && n.kind === 'broker' && n.spec.role === 'slave'
    )!
    expect(copy.spec).toMatchObject({ brokerName: 'broker-a', brokerId: 2 })
    expect(copy.spec).not.toHaveProperty('port')
    expect(copy.spec).not.toHaveProperty('host')
    expect(validateTopology(doc).ok).toBe(true)
  })
  it('pastes a room as a new room with renamed members and remapped references', () => {
    let doc = run(twoRooms(), {
      type: 'add-node',
      kind: 'broker',
      roomId: 'room1',
      id: 's1',
      masterId: 'broker-1'
    })
    doc = run(doc, {
      type: 'update-node',
      nodeId: 'producer-1',
      patch: { fallbackRooms: ['room1', 'room2'] }
    })
    const next = run(doc, {
      type: 'paste',
      fragment: copyFragment(doc, ['room1'])!,
      offset: { x: 40, y: 40 }
    })
    expect(next.rooms.map((r) => r.id)).toEqual(['room1', 'room2', 'room3'])
    const room3 = next.rooms[2]!
    expect(room3.name).toBe('Room 1 (copy)')
    expect(room3.brokers.map((b) => [b.role, b.brokerName])).toEqual([
      ['master', 'broker-c'],
      ['slave', 'broker-c']
    ])
    expect(room3.producers[0]!.fallbackRooms).toEqual(['room3', 'room2'])
    expect(next.layout![room3.producers[0]!.id]).toEqual(doc.layout!['producer-1'])
    expect(next.layout!.room3).toEqual({
      x: doc.layout!.room1!.x + 40,
      y: doc.layout!.room1!.y + 40
    })
    expect(validateTopology(next)).toMatchObject({ ok: true })
  })
  it('creates a room when pasting nodes into a document without rooms', () => {
    const doc = twoRooms()
    const f = copyFragment(doc, ['ns-1'])!
    const next = run(emptyTopology(), { type: 'paste', fragment: f })
    expect(next.rooms).toHaveLength(1)
    expect(next.rooms[0]!.nameServers.map((n) => n.id)).toEqual(['ns-1'])
  })
  it('ignores an empty fragment', () => {
    const doc = twoRooms()
    expect(run(doc, { type: 'paste', fragment: { rooms: [], nodes: [] } })).toBe(doc)
  })
})

describe('set-layout and batch', () => {
  it('sets, replaces and removes positions; no change keeps the document', () => {
    const doc = twoRooms()
    const next = run(doc, {
      type: 'set-layout',
      positions: { 'broker-1': { x: 1, y: 2 }, 'ns-1': null }
    })
    expect(next.layout!['broker-1']).toEqual({ x: 1, y: 2 })
    expect(next.layout!['ns-1']).toBeUndefined()
    expect(run(next, { type: 'set-layout', positions: { 'broker-1': { x: 1, y: 2 } } })).toBe(next)
    expect(run(next, { type: 'set-layout', positions: { 'ns-1': null } })).toBe(next)
  })
  it('applies a batch in order', () => {
    const doc = run(twoRooms(), {
      type: 'batch',
      actions: [
        { type: 'add-room', id: 'r9' },
        { type: 'add-node', kind: 'nameserver', roomId: 'r9', id: 'n9' }
      ]
    })
    expect(findNode(doc, 'n9')!.room).toBe('r9')
    const same = twoRooms()
    expect(run(same, { type: 'batch', actions: [] })).toBe(same)
  })
})

describe('history wrapper', () => {
  const step = withHistory(documentReducer)
  it('records one step per changing action and none for no-ops', () => {
    let h = createHistory(twoRooms())
    h = step(h, { type: 'add-room' })
    h = step(h, { type: 'delete', ids: ['nope'] })
    h = step(h, { type: 'add-node', kind: 'broker', roomId: 'room3', id: 'b' })
    expect(h.past).toHaveLength(2)
    expect(findNode(h.present, 'b')).toBeDefined()
  })
  it('undoes and redoes every action back to the identical document', () => {
    const start = twoRooms()
    const actions: DocAction[] = [
      { type: 'add-room' },
      { type: 'add-node', kind: 'nameserver', roomId: 'room3' },
      { type: 'move-node-to-room', nodeId: 'broker-1', roomId: 'room3' },
      { type: 'update-node', nodeId: 'producer-1', patch: { rate: 5 } },
      { type: 'update-room', roomId: 'room2', patch: { name: 'B' } },
      { type: 'update-topology', patch: { name: 'x' } },
      { type: 'rename', from: 'room1', to: 'a' },
      { type: 'paste', fragment: copyFragment(start, ['consumer-1'])!, targetRoomId: 'room2' },
      { type: 'delete', ids: ['room2'] },
      { type: 'set-layout', positions: { a: { x: 9, y: 9 } } }
    ]
    let h = createHistory(start)
    const states = [start]
    for (const a of actions) {
      h = step(h, a)
      states.push(h.present)
    }
    expect(h.past).toHaveLength(actions.length)
    for (let i = actions.length - 1; i >= 0; i--) {
      h = undo(h)
      expect(h.present).toBe(states[i])
    }
    expect(undo(h)).toBe(h)
    for (let i = 1; i <= actions.length; i++) {
      h = redo(h)
      expect(h.present).toBe(states[i])
    }
    expect(redo(h)).toBe(h)
  })
  it('drops the redo branch after a new edit', () => {
    let h = createHistory(twoRooms())
    h = step(h, { type: 'add-room' })
    h = undo(h)
    h = step(h, { type: 'update-node', nodeId: 'producer-1', patch: { rate: 1 } })
    expect(h.future).toEqual([])
  })
})

describe('uniqueBrokerName', () => {
  it('walks letters then numbers', () => {
    expect(uniqueBrokerName(new Set())).toBe('broker-a')
    expect(uniqueBrokerName(new Set(['broker-a', 'broker-b']))).toBe('broker-c')
    expect(uniqueBrokerName(new Set(['x-a']), 'x-a')).toBe('x-b')
    expect(uniqueBrokerName(new Set(['orders']), 'orders')).toBe('orders-a')
    const all = new Set(Array.from({ length: 26 }, (_, i) => `b-${String.fromCharCode(97 + i)}`))
    expect(uniqueBrokerName(all, 'b-a')).toBe('b-27')
  })
})
