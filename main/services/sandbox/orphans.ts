import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { ProcFs } from './procfs'

/** One process the sandbox started, as recorded in `<sandboxRoot>/pids.json`. */
export interface PidEntry {
  pid: number
  nodeId: string
  /** The run folder; a live process whose command line contains it is provably ours. */
  runDir: string
  /** The DR Studio process that started it; while that one lives, the entry is not an orphan. */
  ownerPid: number
  startedAt: number
}

interface PidFileShape {
  version: 1
  entries: PidEntry[]
}

/** Reads the pid file; a missing or corrupt file is an empty list (it is only a safety net). */
export function readPidFile(path: string): PidEntry[] {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<PidFileShape>
    if (!Array.isArray(parsed.entries)) return []
    return parsed.entries.filter(
      (e): e is PidEntry =>
        typeof e === 'object' &&
        e !== null &&
        Number.isInteger(e.pid) &&
        e.pid > 1 &&
        typeof e.runDir === 'string' &&
        e.runDir.length > 0 &&
        Number.isInteger(e.ownerPid)
    )
  } catch {
    return []
  }
}

/** Writes atomically (temp file + rename), so a crash mid-write never loses the other entries. */
export function writePidFile(path: string, entries: PidEntry[]): void {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify({ version: 1, entries } satisfies PidFileShape, null, 2) + '\n')
  renameSync(tmp, path)
}

/** Read-modify-write of the pid file; synchronous, so one process never interleaves two updates. */
export function updatePidFile(path: string, update: (entries: PidEntry[]) => PidEntry[]): void {
  writePidFile(path, update(readPidFile(path)))
}

export interface OrphanContext {
  procFs: Pick<ProcFs, 'cmdline'>
  /** Run folders owned by live sandboxes of this process. */
  liveRunDirs: ReadonlySet<string>
  selfPid: number
  isAlive: (pid: number) => boolean
}

/** What to do with each recorded pid. */
export interface OrphanPlan {
  /** Still running, provably ours, owner gone: kill. */
  kill: PidEntry[]
  /** Owned by a live sandbox (here or in another live DR Studio): leave alone. */
  keep: PidEntry[]
  /** Dead, or the pid now belongs to an unrelated process: forget. */
  drop: PidEntry[]
}

/**
 * Pure decision: an entry is an orphan only when its owner is gone and the process with that pid
 * still has our run folder on its command line (pids get reused; never kill a stranger).
 */
export function planOrphanSweep(entries: PidEntry[], ctx: OrphanContext): OrphanPlan {
  const plan: OrphanPlan = { kill: [], keep: [], drop: [] }
  for (const entry of entries) {
    if (ctx.liveRunDirs.has(entry.runDir)) {
      plan.keep.push(entry)
      continue
    }
    if (entry.ownerPid !== ctx.selfPid && ctx.isAlive(entry.ownerPid)) {
      plan.keep.push(entry)
      continue
    }
    const cmd = ctx.procFs.cmdline(entry.pid)
    if (cmd !== undefined && cmd.includes(entry.runDir)) plan.kill.push(entry)
    else plan.drop.push(entry)
  }
  return plan
}

/** Sends a signal to a process group (our children lead their own), falling back to the pid. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    try {
      process.kill(pid, signal)
      return true
    } catch {
      return false
    }
  }
}
