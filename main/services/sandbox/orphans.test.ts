import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PidEntry } from './orphans'
import { planOrphanSweep, readPidFile, updatePidFile, writePidFile } from './orphans'

const entry = (pid: number, runDir: string, ownerPid = 999): PidEntry => ({
  pid,
  nodeId: `n${pid}`,
  runDir,
  ownerPid,
  startedAt: 0
})

/** A fake /proc: pid → command line. */
const proc = (table: Record<number, string>) => ({ cmdline: (pid: number) => table[pid] })

describe('planOrphanSweep', () => {
  const run = '/data/sandbox/20260101-000000-abcd'

  it('kills a recorded pid that still runs our run folder when its owner is gone', () => {
    const plan = planOrphanSweep([entry(100, run)], {
      procFs: proc({ 100: `java -Duser.home=${run}/broker-1 BrokerStartup` }),
      liveRunDirs: new Set(),
      selfPid: 1,
      isAlive: () => false
    })
    expect(plan.kill.map((e) => e.pid)).toEqual([100])
  })

  it('never kills a reused pid that runs something else', () => {
    const plan = planOrphanSweep([entry(100, run)], {
      procFs: proc({ 100: 'bash -l' }),
      liveRunDirs: new Set(),
      selfPid: 1,
      isAlive: () => false
    })
    expect(plan.kill).toEqual([])
    expect(plan.drop.map((e) => e.pid)).toEqual([100])
  })

  it('forgets dead pids', () => {
    const plan = planOrphanSweep([entry(100, run)], {
      procFs: proc({}),
      liveRunDirs: new Set(),
      selfPid: 1,
      isAlive: () => false
    })
    expect(plan.drop).toHaveLength(1)
  })

  it('keeps processes of a live run in this process or of another live DR Studio', () => {
    const cmd = { 100: `java ${run}/x`, 101: `java /other/run/y` }
    const plan = planOrphanSweep([entry(100, run, 1), entry(101, '/other/run', 555)], {
      procFs: proc(cmd),
      liveRunDirs: new Set([run]),
      selfPid: 1,
      isAlive: (pid) => pid === 555
    })
    expect(plan.keep.map((e) => e.pid)).toEqual([100, 101])
    expect(plan.kill).toEqual([])
  })

  it('sweeps leftovers of an earlier sandbox of this very process', () => {
    const plan = planOrphanSweep([entry(100, run, 1)], {
      procFs: proc({ 100: `java ${run}/ns-1` }),
      liveRunDirs: new Set(),
      selfPid: 1,
      isAlive: () => true
    })
    expect(plan.kill).toHaveLength(1)
  })
})

describe('pid file', () => {
  it('round-trips, updates atomically and treats garbage as empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drstudio-pids-'))
    const file = join(dir, 'pids.json')
    expect(readPidFile(file)).toEqual([])
    writePidFile(file, [entry(10, '/r')])
    updatePidFile(file, (es) => [...es, entry(11, '/r')])
    expect(readPidFile(file).map((e) => e.pid)).toEqual([10, 11])
    expect(JSON.parse(readFileSync(file, 'utf8')).version).toBe(1)
    writeFileSync(file, '{not json')
    expect(readPidFile(file)).toEqual([])
    writeFileSync(
      file,
      JSON.stringify({ entries: [{ pid: 1, runDir: '/r', ownerPid: 2 }, { pid: 'x' }] })
    )
    expect(readPidFile(file)).toEqual([])
    rmSync(dir, { recursive: true, force: true })
  })
})
