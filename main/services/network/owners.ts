import {
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { NAME_PREFIX, hostLinkName, namespacePrefix } from './plan'

/**
 * Machine-wide, like the namespaces it guards: every DR Studio process (the app, a test, the CLI)
 * must see every other's claims. /run is a tmpfs, so records vanish at reboot with the namespaces.
 */
export const DEFAULT_STATE_DIR = '/run/drstudio/net'

/** Who owns lab instance `instance`; written before anything is created, removed after down. */
export interface OwnerRecord {
  version: 1
  instance: number
  pid: number
  /** Kernel start time of the owner (from /proc/<pid>/stat), so a reused pid is not mistaken for it. */
  pidStart: string | null
  slice: string
  createdAt: string
}

/** Start time of a process in clock ticks since boot; null when it is gone or unreadable. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses; fields after the last ')' are safe.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

/** True while the recorded owner is the same process that wrote the record. */
export function ownerAlive(record: Pick<OwnerRecord, 'pid' | 'pidStart'>): boolean {
  try {
    process.kill(record.pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (record.pidStart === null) return true
  return processStartTime(record.pid) === record.pidStart
}

/** Owner records as files `<dir>/<instance>.json`; claims are exclusive creates, so two racers never share. */
export class OwnerStore {
  constructor(readonly dir: string = DEFAULT_STATE_DIR) {}

  private path(instance: number): string {
    return join(this.dir, `${instance}.json`)
  }

  /**
   * Creates the record; false when one already exists (alive or not: the caller decides). Written
   * to a temp file and hard-linked into place, so nobody ever reads a half-written claim.
   */
  claim(record: OwnerRecord): boolean {
    mkdirSync(this.dir, { recursive: true, mode: 0o755 })
    const tmp = `${this.path(record.instance)}.${process.pid}.claim`
    writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n', { mode: 0o644 })
    try {
      linkSync(tmp, this.path(record.instance))
      return true
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
      throw err
    } finally {
      rmSync(tmp, { force: true })
    }
  }

  /**
   * Moves a dead owner's record aside; only one of several racing processes succeeds (the others
   * find it gone), and the winner then claims as usual.
   */
  takeOver(instance: number): boolean {
    const stale = `${this.path(instance)}.${process.pid}.stale`
    try {
      renameSync(this.path(instance), stale)
    } catch {
      return false
    }
    rmSync(stale, { force: true })
    return true
  }

  read(instance: number): OwnerRecord | null {
    try {
      const r = JSON.parse(readFileSync(this.path(instance), 'utf8')) as Partial<OwnerRecord>
      if (r.version !== 1 || r.instance !== instance || !Number.isInteger(r.pid)) return null
      return r as OwnerRecord
    } catch {
      return null
    }
  }

  /** Every instance with a record file, readable or not (an unreadable one is as good as dead). */
  instances(): number[] {
    try {
      return readdirSync(this.dir)
        .map((f) => /^(\d+)\.json$/.exec(f))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
    } catch {
      return []
    }
  }

  remove(instance: number): void {
    rmSync(this.path(instance), { force: true })
  }
}

/** Which instance a resource belongs to, from its name alone; null for names that are not ours. */
export function instanceOfName(name: string): { instance: number } | { probePid: number } | null {
  const ns = new RegExp(`^${NAME_PREFIX}-(\\d+)-(core|r-.+|n-.+)$`).exec(name)
  if (ns) return { instance: Number(ns[1]) }
  const link = new RegExp(`^${NAME_PREFIX}(\\d+)-host$`).exec(name)
  if (link) return { instance: Number(link[1]) }
  const probe = new RegExp(`^${NAME_PREFIX}-probe-(\\d+)$`).exec(name)
  if (probe) return { probePid: Number(probe[1]) }
  return null
}

export interface SweepInput {
  namespaces: readonly string[]
  hostLinks: readonly string[]
  /** Instances with a record, and whether its owner still runs. */
  records: readonly { instance: number; alive: boolean }[]
  pidAlive: (pid: number) => boolean
  /** Instances this process holds: never swept, whatever the records say. */
  own: ReadonlySet<number>
}

export interface SweepPlan {
  instances: number[]
  namespaces: string[]
  hostLinks: string[]
  /** Records to delete (their owner is dead). */
  records: number[]
}

/**
 * Pure decision: an instance is swept when nobody alive owns it: its record names a dead process,
 * or it has leftovers but no record at all (the record dir was wiped). A live owner's lab is never
 * touched; probe namespaces go when the probing process is gone.
 */
export function planSweep(input: SweepInput): SweepPlan {
  const live = new Set(input.records.filter((r) => r.alive).map((r) => r.instance))
  for (const i of input.own) live.add(i)
  const dead = new Set<number>()
  const namespaces: string[] = []
  const hostLinks: string[] = []
  for (const ns of input.namespaces) {
    const owner = instanceOfName(ns)
    if (!owner) continue
    if ('probePid' in owner) {
      if (!input.pidAlive(owner.probePid)) namespaces.push(ns)
    } else if (!live.has(owner.instance)) {
      dead.add(owner.instance)
      namespaces.push(ns)
    }
  }
  for (const link of input.hostLinks) {
    const owner = instanceOfName(link)
    if (owner && 'instance' in owner && !live.has(owner.instance)) {
      dead.add(owner.instance)
      hostLinks.push(link)
    }
  }
  const records = input.records.filter((r) => !live.has(r.instance)).map((r) => r.instance)
  for (const r of records) dead.add(r)
  return { instances: [...dead].sort((a, b) => a - b), namespaces, hostLinks, records }
}

/** Resource names of one instance, for a targeted clean-up. */
export function belongsTo(instance: number, name: string): boolean {
  return name.startsWith(namespacePrefix(instance)) || name === hostLinkName(instance)
}
