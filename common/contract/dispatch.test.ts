import { describe, expect, it } from 'vitest'
import type { Handlers } from './index'
import { events, requests, REQUEST_CHANNELS } from './index'
import { ContractError, createDispatcher, parseRequest } from './dispatch'

describe('contract', () => {
  it('names channels domain:verb and lists each once', () => {
    for (const name of [...Object.keys(requests), ...Object.keys(events)]) {
      expect(name).toMatch(/^[a-z]+:[a-z-]+$/)
    }
    expect(new Set(REQUEST_CHANNELS).size).toBe(REQUEST_CHANNELS.length)
  })

  it('rejects an unknown channel', () => {
    expect(() => parseRequest('fs:delete-everything', {})).toThrow(ContractError)
    expect(() => parseRequest('fs:delete-everything', {})).toThrow(
      /unknown request channel "fs:delete-everything"/
    )
  })

  it('rejects a malformed payload naming the channel and field', () => {
    expect(() => parseRequest('node:action', { nodeId: 'broker-1', action: 'explode' })).toThrow(
      /invalid payload for "node:action": action:/
    )
    expect(() => parseRequest('topology:open', { path: 42 })).toThrow(
      /invalid payload for "topology:open": path/
    )
    expect(() => parseRequest('node:log', 'not an object')).toThrow(ContractError)
  })

  it('takes a sweep as scenario:run with vary, and refuses runs without it', () => {
    expect(
      parseRequest('scenario:run', {
        id: 'room1-broker-paused',
        vary: ['client.requestTimeout=400ms,1500ms'],
        runs: 2
      }).input
    ).toEqual({ id: 'room1-broker-paused', vary: ['client.requestTimeout=400ms,1500ms'], runs: 2 })
    expect(() => parseRequest('scenario:run', { id: 'healthy', runs: 2 })).toThrow(
      /runs: runs is for a sweep: give vary too/
    )
    expect(() => parseRequest('scenario:run', { id: 'healthy', vary: [] })).toThrow(/vary/)
  })

  it('takes a Kubernetes run target, and refuses one for a sweep or with a namespace Kubernetes would refuse', () => {
    const target = { kind: 'kubernetes', context: 'lab', namespace: 'dr-test' }
    expect(parseRequest('scenario:run', { id: 'healthy', target }).input).toEqual({
      id: 'healthy',
      target
    })
    expect(() =>
      parseRequest('scenario:run', { id: 'healthy', vary: ['lane=remoting,java'], target })
    ).toThrow(
      /target: a sweep runs its settings side by side in one run, which a Kubernetes run cannot/
    )
    expect(() =>
      parseRequest('scenario:run', { id: 'healthy', target: { ...target, namespace: 'Bad_NS' } })
    ).toThrow(/a Kubernetes namespace name/)
  })

  it('applies schema defaults before the handler runs', () => {
    const { input } = parseRequest('node:log', { nodeId: 'ns-1' })
    expect(input).toEqual({ nodeId: 'ns-1', tailBytes: 65536 })
  })

  it('dispatches validated input to the typed handler', async () => {
    const seen: unknown[] = []
    const handlers = Object.fromEntries(
      REQUEST_CHANNELS.map((c) => [
        c,
        async (input: unknown) => {
          seen.push([c, input])
          return { ok: true }
        }
      ])
    ) as unknown as Handlers
    const dispatch = createDispatcher(handlers)
    await expect(dispatch('settings:set', { key: 'a', value: 1 })).resolves.toEqual({ ok: true })
    expect(seen).toEqual([['settings:set', { key: 'a', value: 1 }]])
    await expect(dispatch('settings:set', { key: '' })).rejects.toThrow(/invalid payload/)
    expect(seen).toHaveLength(1)
  })
})
