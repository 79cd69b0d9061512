import { describe, expect, it } from 'vitest'
import type { ProxyCandidate } from './choose-proxy'
import { baselineEndpoint, rankProxies } from './choose-proxy'

const proxy = (id: string, room: string, extra: Partial<ProxyCandidate> = {}): ProxyCandidate => ({
  id,
  room,
  address: `127.0.0.1:${id.length}`,
  zoneMode: true,
  available: true,
  ...extra
})

const P1 = proxy('proxy-1', 'room1')
const P2 = proxy('proxy-2', 'room2')
const P3 = proxy('proxy-3', 'room3')
const PLAIN = proxy('proxy-plain', 'room1', { zoneMode: false })
const ids = (r: { order: ProxyCandidate[] }): string[] => r.order.map((p) => p.id)

describe('rankProxies', () => {
  it('puts the same-room proxy first while healthy', () => {
    const r = rankProxies([P2, P1], 'room1', new Set())
    expect(ids(r)).toEqual(['proxy-1', 'proxy-2'])
    expect(r.reason).toBe('same-room')
  })

  it('never offers a plain (not zone-pinned) proxy', () => {
    expect(ids(rankProxies([PLAIN, P2], 'room1', new Set()))).toEqual(['proxy-2'])
    expect(rankProxies([PLAIN], 'room1', new Set())).toEqual({ order: [], reason: 'none' })
  })

  it('reports none for an empty directory', () => {
    expect(rankProxies([], 'room1', new Set())).toEqual({ order: [], reason: 'none' })
  })

  it('moves a suspected same-room proxy behind other rooms', () => {
    const r = rankProxies([P1, P2], 'room1', new Set(['proxy-1']))
    expect(ids(r)).toEqual(['proxy-2', 'proxy-1'])
    expect(r.reason).toBe('other-room')
  })

  it('moves a proxy the management node reports down behind healthy ones', () => {
    const r = rankProxies([{ ...P1, available: false }, P2], 'room1', new Set())
    expect(ids(r)).toEqual(['proxy-2', 'proxy-1'])
  })

  it('treats a not-yet-probed proxy as usable', () => {
    const r = rankProxies([{ ...P1, available: null }, P2], 'room1', new Set())
    expect(ids(r)).toEqual(['proxy-1', 'proxy-2'])
    expect(r.reason).toBe('same-room')
  })

  it('orders other rooms by the topology room order', () => {
    const r = rankProxies([P2, P3, P1], 'room1', new Set(['proxy-1']), ['room1', 'room3', 'room2'])
    expect(ids(r)).toEqual(['proxy-3', 'proxy-2', 'proxy-1'])
  })

  it('orders rooms missing from the room order last, then by id', () => {
    const r = rankProxies([P3, P2], 'room1', new Set(), ['room2'])
    expect(ids(r)).toEqual(['proxy-2', 'proxy-3'])
  })

  it('still offers every proxy when all are suspect, same room first', () => {
    const r = rankProxies([P2, P1], 'room1', new Set(['proxy-1', 'proxy-2']))
    expect(ids(r)).toEqual(['proxy-1', 'proxy-2'])
    expect(r.reason).toBe('all-suspect')
  })

  it('breaks ties within a room by id', () => {
    const a = proxy('proxy-a', 'room1')
    const b = proxy('proxy-b', 'room1')
    expect(ids(rankProxies([b, a], 'room1', new Set()))).toEqual(['proxy-a', 'proxy-b'])
  })
})

describe('baselineEndpoint', () => {
  it("prefers the user's own room's plain proxy", () => {
    const plain2 = proxy('plain-2', 'room2', { zoneMode: false })
    expect(baselineEndpoint([P1, plain2, PLAIN], 'room1')?.id).toBe('proxy-plain')
  })
  it('falls back to any plain proxy, then the own room, then anything', () => {
    expect(baselineEndpoint([P1, PLAIN], 'room2')?.id).toBe('proxy-plain')
    expect(baselineEndpoint([P1, P2], 'room2')?.id).toBe('proxy-2')
    expect(baselineEndpoint([P1], 'room9')?.id).toBe('proxy-1')
    expect(baselineEndpoint([], 'room1')).toBeUndefined()
  })
})
