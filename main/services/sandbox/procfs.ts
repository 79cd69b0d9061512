import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/** Read-only view of the process table; injected so orphan and pause logic test with a fake /proc. */
export interface ProcFs {
  /** Command line joined with spaces, or undefined when the process is gone. */
  cmdline(pid: number): string | undefined
  /** One-letter scheduler state (R, S, D, T, Z...), or undefined when the process is gone. */
  state(pid: number): string | undefined
  /** Resident set size in KiB. */
  rssKb(pid: number): number | undefined
  /** Direct children, for summing a process tree. */
  children(pid: number): number[]
  /** CPU time the process used so far (user + system), in seconds; undefined when unknown. */
  cpuSeconds?(pid: number): number | undefined
}

/** /proc reports CPU times in USER_HZ ticks, which Linux fixes at 100 per second for user space. */
const USER_HZ = 100

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function statusField(pid: number, field: string): string | undefined {
  const text = readText(`/proc/${pid}/status`)
  if (text === undefined) return undefined
  const m = new RegExp(`^${field}:\\s*(.*)$`, 'm').exec(text)
  return m ? m[1]!.trim() : undefined
}

/** Linux /proc reader. */
export const linuxProcFs: ProcFs = {
  cmdline(pid) {
    const raw = readText(`/proc/${pid}/cmdline`)
    if (raw === undefined || raw === '') return undefined
    return raw.replace(/\0+$/, '').split('\0').join(' ')
  },
  state(pid) {
    return statusField(pid, 'State')?.charAt(0)
  },
  rssKb(pid) {
    const v = statusField(pid, 'VmRSS')
    return v === undefined ? undefined : Number.parseInt(v, 10)
  },
  cpuSeconds(pid) {
    const stat = readText(`/proc/${pid}/stat`)
    if (stat === undefined) return undefined
    // Fields after the command (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    return Number.isFinite(utime + stime) ? (utime + stime) / USER_HZ : undefined
  },
  children(pid) {
    const out: number[] = []
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      return out
    }
    for (const tid of tasks) {
      const text = readText(`/proc/${pid}/task/${tid}/children`)
      if (text) out.push(...text.trim().split(/\s+/).filter(Boolean).map(Number))
    }
    return out
  }
}

function ps(pid: number, field: string): string | undefined {
  const r = spawnSync('ps', ['-o', `${field}=`, '-p', String(pid)], { encoding: 'utf8' })
  const text = r.status === 0 ? r.stdout.trim() : ''
  return text === '' ? undefined : text
}

/** macOS/BSD fallback through `ps`; slower, but only used for sweeps and pause checks. */
export const psProcFs: ProcFs = {
  cmdline: (pid) => ps(pid, 'command'),
  state: (pid) => ps(pid, 'state')?.charAt(0),
  rssKb: (pid) => {
    const v = ps(pid, 'rss')
    return v === undefined ? undefined : Number.parseInt(v, 10)
  },
  children: (pid) => {
    const r = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    return r.stdout.trim().split(/\s+/).filter(Boolean).map(Number)
  }
}

/** The process-table reader for this platform. */
export function defaultProcFs(platform: NodeJS.Platform = process.platform): ProcFs {
  return platform === 'linux' ? linuxProcFs : psProcFs
}

/** Sum of RSS over a process and all its descendants, in KiB. */
export function treeRssKb(procFs: ProcFs, pid: number): number {
  let total = 0
  const seen = new Set<number>()
  const stack = [pid]
  while (stack.length > 0) {
    const p = stack.pop()!
    if (seen.has(p)) continue
    seen.add(p)
    total += procFs.rssKb(p) ?? 0
    stack.push(...procFs.children(p))
  }
  return total
}
