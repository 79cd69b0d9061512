import { beforeEach, describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { findNode, topologySchema } from '../../../common/topology'
import { useCanvasStore } from './canvas-store'
import { selectCanRedo, selectCanUndo, selectDirty, useEditorStore } from './editor-store'
import { failoverMessage, useLiveStore } from './live-store'
import { useRunStore } from './run-store'
import { useUiStore } from './ui-store'

const editor = () => useEditorStore.getState()
const doc = () => editor().history.present

beforeEach(() => {
  editor().load(topologySchema.parse(twoRoomsJson), { path: '/tmp/two-rooms.json' })
  useLiveStore.getState().reset()
  useUiStore.setState({ toasts: [] })
})

describe('editor store', () => {
  it('loads clean with a complete layout and the file name from the path', () => {
    expect(selectDirty(editor())).toBe(false)
    expect(editor().fileName).toBe('two-rooms.json')
    expect(doc().layout!['broker-1']).toBeDefined()
    expect(editor().problems).toEqual([])
  })
  it('is dirty after an edit and clean again after undoing it', () => {
    editor().dispatch({ type: 'update-node', nodeId: 'producer-1', patch: { rate: 5 } })
    expect(selectDirty(editor())).toBe(true)
    expect(selectCanUndo(editor())).toBe(true)
    editor().undo()
    expect(selectDirty(editor())).toBe(false)
    expect(selectCanRedo(editor())).toBe(true)
    editor().redo()
    expect(findNode(doc(), 'producer-1')!.spec).toMatchObject({ rate: 5 })
  })
  it('recomputes problems on every change', () => {
    editor().dispatch({ type: 'update-node', nodeId: 'broker-2', patch: { brokerId: 4 } })
    expect(editor().problems.map((p) => p.code)).toEqual(['master-broker-id'])
    expect(editor().problemIndex.get('broker-2')?.[0]?.field).toBe('brokerId')
  })
  it('adds nodes into the room of the selection and selects them', () => {
    editor().select(['consumer-2'])
    editor().addNode('nameserver')
    expect(editor().selection).toEqual(['ns-3'])
    expect(findNode(doc(), 'ns-3')!.room).toBe('room2')
    editor().addNode('broker', { masterId: 'broker-2' })
    expect(findNode(doc(), 'broker-3')!.spec).toMatchObject({
      role: 'slave',
      brokerName: 'broker-b',
      brokerId: 1
    })
  })
  it('adds a room and selects it', () => {
    editor().addRoom()
    expect(editor().selection).toEqual(['room3'])
  })
  it('copies, pastes (selecting the copies) and cuts', () => {
    editor().select(['producer-1', 'broker-1'])
    editor().copySelection()
    editor().paste()
    expect(editor().selection.sort()).toEqual(['broker-3', 'producer-3'])
    editor().paste()
    expect(doc().layout!['producer-4']!.x).toBeGreaterThan(doc().layout!['producer-3']!.x)
    editor().select(['room2'])
    editor().cutSelection()
    expect(doc().rooms.map((r) => r.id)).toEqual(['room1'])
    editor().paste()
    expect(doc().rooms).toHaveLength(2)
    expect(editor().selection).toEqual(['room2'])
  })
  it('deletes the selection and drops vanished ids from it on undo/redo', () => {
    editor().select(['broker-1', 'room2'])
    editor().deleteSelection()
    expect(editor().selection).toEqual([])
    expect(doc().rooms).toHaveLength(1)
    editor().undo()
    expect(doc().rooms).toHaveLength(2)
  })
  it('renames and keeps the renamed item selected', () => {
    editor().select(['broker-1'])
    expect(editor().rename('broker-1', 'bj-1')).toBe(true)
    expect(editor().selection).toEqual(['bj-1'])
    expect(editor().rename('bj-1', 'broker-2')).toBe(false)
  })
  it('marks a document saved under a new path', () => {
    editor().dispatch({ type: 'update-room', roomId: 'room1', patch: { name: 'A' } })
    editor().markSaved(doc(), '/x/y/new.json')
    expect(selectDirty(editor())).toBe(false)
    expect(editor().fileName).toBe('new.json')
  })
  it('auto-layouts every room and member as one undo step', async () => {
    await editor().autoLayout()
    expect(editor().history.past).toHaveLength(1)
    const l = doc().layout!
    expect(l.room2!.x).toBeGreaterThan(l.room1!.x)
    expect(l['producer-1']!.y).toBeGreaterThan(l['broker-1']!.y)
    expect(l['broker-1']!.y).toBeGreaterThan(l['ns-1']!.y)
  })
})

describe('canvas store', () => {
  const node = (id: string) => useCanvasStore.getState().nodes.find((n) => n.id === id)!
  it('mirrors the document and selection', () => {
    editor().select(['ns-2'])
    expect(node('ns-2').selected).toBe(true)
    expect(useCanvasStore.getState().nodes.filter((n) => n.type === 'room')).toHaveLength(2)
  })
  it('turns React Flow selection changes into the editor selection', () => {
    useCanvasStore.getState().onNodesChange([{ type: 'select', id: 'broker-1', selected: true }])
    useCanvasStore.getState().onNodesChange([{ type: 'select', id: 'room2', selected: true }])
    expect(editor().selection).toEqual(['broker-1', 'room2'])
    useCanvasStore.getState().onNodesChange([{ type: 'select', id: 'broker-1', selected: false }])
    expect(editor().selection).toEqual(['room2'])
  })
  it('moves a node to the room it is dropped on, as one undo step', () => {
    const room2 = node('room2')
    const room1 = node('room1')
    // Relative to room1, a point inside room2's body.
    const drop = {
      x: room2.position.x - room1.position.x + 40,
      y: room2.position.y - room1.position.y + 60
    }
    const { onNodesChange } = useCanvasStore.getState()
    onNodesChange([
      { type: 'position', id: 'producer-1', position: { x: 50, y: 200 }, dragging: true }
    ])
    onNodesChange([{ type: 'position', id: 'producer-1', position: drop, dragging: true }])
    onNodesChange([{ type: 'position', id: 'producer-1', position: drop, dragging: false }])
    expect(findNode(doc(), 'producer-1')!.room).toBe('room2')
    expect(doc().layout!['producer-1']).toEqual({ x: 40, y: 60 })
    expect(editor().history.past).toHaveLength(1)
    expect(node('producer-1').parentId).toBe('room2')
  })
  it('keeps a node in its room when dropped on empty canvas, clamped under the header', () => {
    const { onNodesChange } = useCanvasStore.getState()
    onNodesChange([
      { type: 'position', id: 'ns-1', position: { x: -5000, y: -5000 }, dragging: true }
    ])
    onNodesChange([
      { type: 'position', id: 'ns-1', position: { x: -5000, y: -5000 }, dragging: false }
    ])
    expect(findNode(doc(), 'ns-1')!.room).toBe('room1')
    expect(doc().layout!['ns-1']).toEqual({ x: 16, y: 40 })
  })
  it('moves a room by its layout entry', () => {
    const { onNodesChange } = useCanvasStore.getState()
    onNodesChange([
      { type: 'position', id: 'room2', position: { x: 1500.4, y: 300 }, dragging: true }
    ])
    onNodesChange([
      { type: 'position', id: 'room2', position: { x: 1500.4, y: 300 }, dragging: false }
    ])
    expect(doc().layout!.room2).toEqual({ x: 1500, y: 300 })
  })
  it('draws live edges from the live store', () => {
    useLiveStore
      .getState()
      .applyChoice({ clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'broker-2' })
    const edges = useCanvasStore.getState().edges
    expect(edges.map((e) => e.data!.crossRoom)).toEqual([false, true])
  })
})

describe('live store', () => {
  it('tracks choices and rates, ignoring malformed payloads', () => {
    const live = useLiveStore.getState()
    live.applyChoices([
      { clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'broker-1', rate: 20 },
      { nope: 1 },
      null
    ])
    const before = useLiveStore.getState().choices
    live.applyChoice({ clientId: 'producer-1', rate: 35 })
    expect(useLiveStore.getState().choices).toBe(before)
    expect(useLiveStore.getState().rates['producer-1']).toBe(35)
  })
  it('flashes and announces a failover with rooms and time', () => {
    const live = useLiveStore.getState()
    live.applyChoice({ clientId: 'producer-1', namesrvId: 'ns-1', brokerId: 'broker-1' })
    expect(useUiStore.getState().toasts).toEqual([])
    live.applyChoice({ clientId: 'producer-1', brokerId: 'broker-2', failoverMs: 23 })
    expect(useLiveStore.getState().flashes['producer-1']).toBeGreaterThan(0)
    expect(useUiStore.getState().toasts.map((t) => t.message)).toEqual([
      'producer-1 (room1): broker room1 → room2, 23 ms'
    ])
  })
  it('understands ledger failover records', () => {
    const live = useLiveStore.getState()
    live.applyChoice({ clientId: 'consumer-1', namesrvId: 'ns-1', brokerId: 'broker-1' })
    live.applyLedgerEvents([
      { kind: 'failover', clientId: 'consumer-1', to: { brokerId: 'broker-2' }, rtoMs: 41 },
      { kind: 'send' }
    ])
    expect(useLiveStore.getState().choices['consumer-1']!.brokerId).toBe('broker-2')
    expect(useUiStore.getState().toasts.at(-1)!.message).toBe(
      'consumer-1 (room1): broker room1 → room2, 41 ms'
    )
  })
  it('formats failover messages', () => {
    expect(failoverMessage('p', undefined, 'broker a → b', undefined)).toBe('p: broker a → b')
  })
})

describe('run store', () => {
  it('applies status snapshots and batched node states', () => {
    const run = useRunStore.getState()
    run.applyStatus({
      running: true,
      runId: 7,
      startedAt: 1,
      nodes: [{ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'starting' }]
    })
    run.applyProgress([{ nodeId: 'broker-1', message: 'waiting for port 10911', at: 2 }])
    expect(useRunStore.getState().progress['broker-1']).toBe('waiting for port 10911')
    run.applyNodeStates([
      { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up', address: '127.0.0.1:10911' }
    ])
    const s = useRunStore.getState()
    expect(s.states['broker-1']).toBe('up')
    expect(s.progress['broker-1']).toBeUndefined()
    expect(s.nodes['broker-1']!.address).toBe('127.0.0.1:10911')
    const states = s.states
    run.applyNodeStates([])
    expect(useRunStore.getState().states).toBe(states)
  })
  it('keeps the live run’s newest phase from its ledger rows, and forgets it when the sandbox stops', () => {
    const run = useRunStore.getState()
    run.applyStatus({ running: true, runId: 7, startedAt: 1, nodes: [] })
    const row = (kind: string, data: unknown) => ({ runId: 7, kind, data })
    run.applyLedgerEvents([row('phase', { phase: 'setup' }), row('send', { key: 'k' })])
    expect(useRunStore.getState().phase).toEqual({ runId: 7, phase: 'setup' })
    const before = useRunStore.getState().phase
    run.applyLedgerEvents([row('failover', {}), row('phase', null)])
    expect(useRunStore.getState().phase).toBe(before)
    run.applyLedgerEvents([row('phase', { phase: 'settle' }), row('phase', { phase: 'workload' })])
    expect(useRunStore.getState().phase).toEqual({ runId: 7, phase: 'workload' })
    run.applyStatus({ running: false, runId: null, startedAt: null, nodes: [] })
    expect(useRunStore.getState().phase).toBeNull()
  })
  it('takes node states from a run’s ledger rows: a Kubernetes run’s pods have no sandbox events', () => {
    const run = useRunStore.getState()
    run.applyStatus({ running: false, runId: null, startedAt: null, nodes: [] })
    const row = (data: unknown) => ({ runId: 9, kind: 'node-state', data })
    run.applyLedgerEvents([
      row({ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up' }),
      row({ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'killed' }),
      row({ nodeId: 'ns-1', state: 'not-a-state' })
    ])
    expect(useRunStore.getState().states).toEqual({ 'broker-1': 'killed' })
    // While the sandbox runs its own events, which carry more (readiness, address), win.
    run.applyStatus({
      running: true,
      runId: 9,
      startedAt: 1,
      nodes: [{ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up', readyInMs: 900 }]
    })
    run.applyLedgerEvents([
      row({ nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'killed' })
    ])
    expect(useRunStore.getState().nodes['broker-1']).toMatchObject({ state: 'up', readyInMs: 900 })
  })
  it('announces failed nodes', () => {
    useRunStore.getState().applyNodeStates([
      {
        nodeId: 'ns-1',
        kind: 'nameserver',
        room: 'room1',
        state: 'failed',
        detail: 'port in use'
      }
    ])
    expect(useUiStore.getState().toasts.at(-1)).toMatchObject({
      level: 'error',
      message: 'ns-1 failed: port in use'
    })
  })
  it('refuses to start a document with problems', async () => {
    editor().dispatch({ type: 'update-node', nodeId: 'broker-2', patch: { brokerId: 4 } })
    useRunStore.setState({ running: false, busy: null })
    await useRunStore.getState().start()
    expect(useUiStore.getState().toasts.at(-1)!.message).toMatch(/^Fix 1 problem before starting/)
  })
})
