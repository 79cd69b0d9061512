import { Position, getBezierPath } from '@xyflow/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'
import { FLASH_MS, useLiveStore } from '../stores/live-store'
import { refreshFlashing, useFlashing } from './flash-tracker'
import { flowDuration, livePath, nodeBoxes } from './live-edge'
import { memberPaths } from './minimap-room'

const room = (id: string, x: number, y: number): FlowNode => ({
  id,
  type: 'room',
  position: { x, y },
  width: 600,
  height: 400,
  data: { roomId: id, name: id, members: 0, problems: 0 }
})

const member = (id: string, parentId: string, x: number, y: number): FlowNode => ({
  id,
  type: 'component',
  parentId,
  position: { x, y },
  width: 180,
  height: 56,
  data: { nodeId: id, kind: 'broker', room: parentId, subtitle: '', attached: false, problems: 0 }
})

const edge = (source: string, target: string): LiveFlowEdge => ({
  id: `live:${source}:broker`,
  type: 'live',
  source,
  target,
  data: { clientId: source, link: 'broker', crossRoom: true, fromRoom: 'room1', toRoom: 'room2' }
})

describe('live edge geometry', () => {
  const nodes = [
    room('room1', 0, 0),
    room('room2', 1000, 50),
    member('producer-1', 'room1', 20, 300),
    member('broker-2', 'room2', 40, 60)
  ]

  it('places members relative to their room', () => {
    const boxes = nodeBoxes(nodes)
    expect(boxes.get('broker-2')).toEqual({ x: 1040, y: 110, w: 180, h: 56 })
    expect(boxes.get('room1')).toEqual({ x: 0, y: 0, w: 600, h: 400 })
  })

  it('draws from the client top centre to the server bottom centre, like React Flow did', () => {
    const [expected] = getBezierPath({
      sourceX: 110,
      sourceY: 300,
      sourcePosition: Position.Top,
      targetX: 1130,
      targetY: 166,
      targetPosition: Position.Bottom
    })
    expect(livePath(edge('producer-1', 'broker-2'), nodeBoxes(nodes))).toBe(expected)
    expect(livePath(edge('producer-1', 'gone'), nodeBoxes(nodes))).toBeNull()
  })

  it('animates faster with more traffic and not at all without', () => {
    expect(flowDuration(0)).toBe(0)
    expect(flowDuration(50)).toBeGreaterThan(flowDuration(600))
  })
})

describe('flash tracker', () => {
  afterEach(() => {
    vi.useRealTimers()
    useLiveStore.getState().reset()
  })

  it('flashes a client for FLASH_MS after its failover, then stops', () => {
    vi.useFakeTimers()
    const t0 = Date.now()
    useLiveStore.setState({ flashes: { 'producer-1': t0 } })
    expect(useFlashing.getState().ids.has('producer-1')).toBe(true)
    vi.advanceTimersByTime(FLASH_MS - 1)
    expect(useFlashing.getState().ids.has('producer-1')).toBe(true)
    vi.advanceTimersByTime(2)
    expect(useFlashing.getState().ids.size).toBe(0)
    // An old failover (e.g. replayed from the ledger) does not flash.
    useLiveStore.setState({ flashes: { 'producer-2': t0 - FLASH_MS - 5 } })
    refreshFlashing()
    expect(useFlashing.getState().ids.size).toBe(0)
  })
})

describe('minimap shapes', () => {
  it('draws a room’s members as one path per kind, in flow coordinates', () => {
    const nodes = [
      room('room1', 100, 50),
      member('broker-1', 'room1', 10, 20),
      member('broker-2', 'room1', 200, 20),
      member('elsewhere', 'room2', 0, 0)
    ]
    expect(memberPaths(nodes, 'room1', { x: 100, y: 50 })).toEqual([
      ['broker', 'M110 70h180v56h-180zM300 70h180v56h-180z']
    ])
  })
})
