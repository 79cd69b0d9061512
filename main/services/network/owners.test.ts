import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { OwnerRecord } from './owners'
import {
  OwnerStore,
  belongsTo,
  instanceOfName,
  ownerAlive,
  planSweep,
  processStartTime
} from './owners'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function store(): OwnerStore {
  const dir = mkdtempSync(join(tmpdir(), 'drs-owners-'))
  dirs.push(dir)
  return new OwnerStore(dir)
}
const rec = (instance: number, pid = 4242): OwnerRecord => ({
  version: 1,
  instance,
  pid,
  pidStart: null,
  slice: `198.18.${instance * 16}.0/20`,
  createdAt: '2026-01-01T00:00:00.000Z'
})

describe('instanceOfName', () => {
  it('knows our names and nobody else’s', () => {
    expect(instanceOfName('drs-3-core')).toEqual({ instance: 3 })
    expect(instanceOfName('drs-3-r-room1')).toEqual({ instance: 3 })
    expect(instanceOfName('drs-12-n-broker-1')).toEqual({ instance: 12 })
    expect(instanceOfName('drs3-host')).toEqual({ instance: 3 })
    expect(instanceOfName('drs-probe-777')).toEqual({ probePid: 777 })
    for (const other of ['docker0', 'drs-3', 'drs-x-core', 'mydrs-3-core', 'drs-3-other', 'eth0']) {
      expect(instanceOfName(other), other).toBeNull()
    }
    expect(belongsTo(3, 'drs-3-n-a')).toBe(true)
    expect(belongsTo(3, 'drs-31-n-a')).toBe(false)
    expect(belongsTo(3, 'drs3-host')).toBe(true)
  })
})

describe('planSweep', () => {
  const base = {
    namespaces: [
      'drs-0-core',
      'drs-0-n-a',
      'drs-1-core',
      'drs-2-core',
      'drs-probe-10',
      'drs-probe-11',
      'other'
    ],
    hostLinks: ['eth0', 'drs0-host', 'drs1-host', 'drs5-host'],
    records: [
      { instance: 0, alive: false },
      { instance: 1, alive: true },
      { instance: 7, alive: false }
    ],
    pidAlive: (pid: number) => pid === 11,
    own: new Set<number>()
  }

  it('sweeps dead owners and record-less leftovers, keeps live owners and live probes', () => {
    expect(planSweep(base)).toEqual({
      instances: [0, 2, 5, 7],
      namespaces: ['drs-0-core', 'drs-0-n-a', 'drs-2-core', 'drs-probe-10'],
      hostLinks: ['drs0-host', 'drs5-host'],
      records: [0, 7]
    })
  })

  it('never sweeps what this process holds, whatever the records say', () => {
    const plan = planSweep({ ...base, own: new Set([0, 2]) })
    expect(plan.instances).toEqual([5, 7])
    expect(plan.namespaces).toEqual(['drs-probe-10'])
  })
})

describe('OwnerStore', () => {
  it('claims exclusively, reads back, takes over once, removes', () => {
    const s = store()
    expect(s.claim(rec(2))).toBe(true)
    expect(s.claim(rec(2, 99))).toBe(false)
    expect(s.read(2)).toEqual(rec(2))
    expect(s.instances()).toEqual([2])
    expect(s.takeOver(2)).toBe(true)
    expect(s.takeOver(2)).toBe(false)
    expect(s.read(2)).toBeNull()
    expect(s.claim(rec(2, 99))).toBe(true)
    s.remove(2)
    expect(s.instances()).toEqual([])
  })

  it('treats a corrupt record as unreadable (so its instance counts as dead)', () => {
    const s = store()
    writeFileSync(join(s.dir, '4.json'), '{"version":1,')
    expect(s.instances()).toEqual([4])
    expect(s.read(4)).toBeNull()
    expect(readFileSync(join(s.dir, '4.json'), 'utf8')).toContain('version')
  })
})

describe('ownerAlive', () => {
  it.skipIf(process.platform !== 'linux')(
    'is true for this process with its start time and false once the start time differs',
    () => {
      const start = processStartTime(process.pid)
      expect(start).toMatch(/^\d+$/)
      expect(ownerAlive({ pid: process.pid, pidStart: start })).toBe(true)
      expect(ownerAlive({ pid: process.pid, pidStart: '1' })).toBe(false)
      expect(ownerAlive({ pid: 2 ** 22 + 12345, pidStart: null })).toBe(false)
    }
  )
})
