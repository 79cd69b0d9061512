import { describe, expect, it } from 'vitest'
import { cleanError, takeToken, wsUrl } from './bridge'

function memoryStorage() {
  const m = new Map<string, string>()
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v)
  }
}

describe('takeToken', () => {
  it('reads the token, stores it and removes it from the visible URL, keeping other params', () => {
    const storage = memoryStorage()
    const calls: string[] = []
    const token = takeToken({ search: '?token=abc&bench=1', pathname: '/', hash: '#x' }, storage, {
      state: null,
      replaceState: (_s: unknown, _t: string, url?: string | URL | null) =>
        void calls.push(String(url))
    })
    expect(token).toBe('abc')
    expect(calls).toEqual(['/?bench=1#x'])
    expect(storage.getItem('drstudio.token')).toBe('abc')
  })
  it('falls back to the stored token after a reload', () => {
    const storage = memoryStorage()
    storage.setItem('drstudio.token', 'saved')
    expect(takeToken({ search: '', pathname: '/', hash: '' }, storage, null)).toBe('saved')
    expect(takeToken({ search: '', pathname: '/', hash: '' }, memoryStorage(), null)).toBeNull()
  })
})

describe('wsUrl', () => {
  it('uses the page host, ws or wss, and an encoded token', () => {
    expect(wsUrl({ protocol: 'http:', host: '127.0.0.1:4000' }, 'a b')).toBe(
      'ws://127.0.0.1:4000/ws?token=a%20b'
    )
    expect(wsUrl({ protocol: 'https:', host: 'h' }, null)).toBe('wss://h/ws')
  })
})

describe('cleanError', () => {
  it('strips the Electron remote-method prefix and keeps the error name', () => {
    const e = cleanError(
      new Error("Error invoking remote method 'topology:open': ContractError: no such file")
    )
    expect(e.message).toBe('no such file')
    expect(e.name).toBe('ContractError')
    expect(cleanError('x').message).toBe('x')
    const plain = new Error('plain')
    expect(cleanError(plain)).toBe(plain)
  })
})
