import type { Clash } from './addressing'
import { findClashes, parseCidr } from './addressing'
import type { ExecPort, ExecResult } from './exec'
import { belongsTo } from './owners'

/** Parses `ip -j` output; a failed command or odd output is an empty list. */
export function parseJson<T>(r: ExecResult): T[] {
  if (r.code !== 0) return []
  try {
    const v = JSON.parse(r.stdout || '[]') as unknown
    return Array.isArray(v) ? (v as T[]) : []
  } catch {
    return []
  }
}

/** `ip netns list` prints `name (id: 3)`; keep the names. */
export function namespaceNames(r: ExecResult): string[] {
  if (r.code !== 0) return []
  return r.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean)
}

/** `ip netns pids` prints one pid a line. */
export function pidList(r: ExecResult): number[] {
  if (r.code !== 0) return []
  return r.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 1)
}

/** Addresses and routes of the host namespace that overlap `slice` (from `ip -j`). */
export function clashesIn(slice: string, addrs: ExecResult, routes: ExecResult): Clash[] {
  const entries: { what: string; prefix: string }[] = []
  type Link = { ifname: string; addr_info?: { local: string; prefixlen: number }[] }
  for (const link of parseJson<Link>(addrs)) {
    for (const a of link.addr_info ?? []) {
      const prefix = `${a.local}/${a.prefixlen}`
      entries.push({ what: `address ${prefix} on ${link.ifname}`, prefix })
    }
  }
  type Route = { dst: string; dev?: string; table?: string; type?: string }
  for (const r of parseJson<Route>(routes)) {
    // local/broadcast entries mirror addresses, which are already listed.
    if (r.type === 'local' || r.type === 'broadcast') continue
    const table = r.table && r.table !== 'main' ? ` (table ${r.table})` : ''
    entries.push({ what: `route ${r.dst}${r.dev ? ` dev ${r.dev}` : ''}${table}`, prefix: r.dst })
  }
  return findClashes(parseCidr(slice)!, entries)
}

export type Signal = (pid: number, signal: NodeJS.Signals) => void

/** Finds and removes DR Studio's network resources by name; used by down, up (leftovers) and sweep. */
export class HostResources {
  constructor(
    private readonly exec: ExecPort,
    private readonly signal: Signal,
    private readonly pidAlive: (pid: number) => boolean
  ) {}

  async namespaces(): Promise<string[]> {
    return namespaceNames(await this.exec.run(['ip', 'netns', 'list']))
  }

  async links(): Promise<string[]> {
    const r = await this.exec.run(['ip', '-j', 'link', 'show'])
    return parseJson<{ ifname: string }>(r).map((l) => l.ifname)
  }

  /** Deletes every resource named for `instance`, killing what still runs inside first. */
  async removeInstance(instance: number): Promise<void> {
    const namespaces = (await this.namespaces()).filter((ns) => belongsTo(instance, ns))
    await this.killInside(namespaces)
    for (const link of (await this.links()).filter((l) => belongsTo(instance, l))) {
      await this.exec.run(['ip', 'link', 'del', link])
    }
    await this.deleteNamespaces(namespaces)
  }

  /** The same, synchronously and without grace, for process-exit handlers. */
  removeInstanceSync(instance: number): void {
    const namespaces = namespaceNames(this.exec.runSync(['ip', 'netns', 'list'])).filter((ns) =>
      belongsTo(instance, ns)
    )
    for (const ns of namespaces) {
      for (const pid of pidList(this.exec.runSync(['ip', 'netns', 'pids', ns]))) {
        this.signal(pid, 'SIGKILL')
      }
    }
    const links = parseJson<{ ifname: string }>(this.exec.runSync(['ip', '-j', 'link', 'show']))
    for (const l of links.filter((x) => belongsTo(instance, x.ifname))) {
      this.exec.runSync(['ip', 'link', 'del', l.ifname])
    }
    if (namespaces.length) this.exec.runSync(['ip', '-force', '-batch', '-'], netnsDel(namespaces))
  }

  async deleteNamespaces(namespaces: readonly string[]): Promise<void> {
    if (namespaces.length)
      await this.exec.run(['ip', '-force', '-batch', '-'], netnsDel(namespaces))
  }

  /** SIGTERM, up to 2 s of grace, then SIGKILL for processes still inside the namespaces. */
  private async killInside(namespaces: readonly string[]): Promise<void> {
    let pids: number[] = []
    for (const ns of namespaces) {
      pids.push(...pidList(await this.exec.run(['ip', 'netns', 'pids', ns])))
    }
    if (pids.length === 0) return
    for (const pid of pids) this.signal(pid, 'SIGTERM')
    for (let i = 0; i < 20 && pids.length; i++) {
      await new Promise((r) => setTimeout(r, 100))
      pids = pids.filter((p) => this.pidAlive(p))
    }
    for (const pid of pids) this.signal(pid, 'SIGKILL')
  }
}

function netnsDel(namespaces: readonly string[]): string {
  return namespaces.map((ns) => `netns del ${ns}`).join('\n') + '\n'
}
