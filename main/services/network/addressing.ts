/** IPv4 arithmetic for the lab's address plan; pure, so the planner and the overlap check test alone. */

/** RFC 2544 benchmarking range: never routed on the internet, rarely used on a LAN. */
export const DEFAULT_RANGE = '198.18.0.0/15'
/** Each lab instance gets one /20 of the range: one /24 for links, then one /24 per room. */
export const SLICE_PREFIX = 20
export const RANGE_ENV = 'DRSTUDIO_NET_RANGE'

/** The range labs are carved from: `DRSTUDIO_NET_RANGE` when set, else the benchmarking range. */
export function labRange(env: Record<string, string | undefined> = process.env): string {
  return env[RANGE_ENV]?.trim() || DEFAULT_RANGE
}

export interface Cidr {
  /** Network address as an unsigned 32-bit integer. */
  base: number
  prefix: number
}

export function ipToInt(ip: string): number | null {
  const parts = ip.split('.')
  if (parts.length !== 4) return null
  let n = 0
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null
    n = n * 256 + Number(p)
  }
  return n
}

export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.')
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0
}

/** Parses `a.b.c.d/n` (a bare address is a /32); the base is masked to the prefix. */
export function parseCidr(text: string): Cidr | null {
  const [ip, bits, extra] = text.trim().split('/')
  if (extra !== undefined || ip === undefined) return null
  const n = ipToInt(ip)
  const prefix = bits === undefined ? 32 : /^\d{1,2}$/.test(bits) ? Number(bits) : NaN
  if (n === null || !(prefix >= 0 && prefix <= 32)) return null
  return { base: (n & maskOf(prefix)) >>> 0, prefix }
}

export function formatCidr(c: Cidr): string {
  return `${intToIp(c.base)}/${c.prefix}`
}

export function cidrSize(c: Cidr): number {
  return 2 ** (32 - c.prefix)
}

export function overlaps(a: Cidr, b: Cidr): boolean {
  const aEnd = a.base + cidrSize(a) - 1
  const bEnd = b.base + cidrSize(b) - 1
  return a.base <= bEnd && b.base <= aEnd
}

export function contains(outer: Cidr, inner: Cidr): boolean {
  return inner.prefix >= outer.prefix && inner.base >= outer.base && overlaps(outer, inner)
}

/** Ranges that no public host uses, so a lab address never shadows a real server. */
const PRIVATE = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  DEFAULT_RANGE
].map((t) => parseCidr(t)!)

export type RangeResult = { ok: true; range: Cidr; slices: number } | { ok: false; error: string }

/** Checks a lab range (the default or `DRSTUDIO_NET_RANGE`): private, and room for at least one /20. */
export function parseRange(text: string, source = RANGE_ENV): RangeResult {
  const range = parseCidr(text)
  const fix = `set ${RANGE_ENV} to a free private range of /20 or larger, e.g. 10.213.0.0/16`
  if (!range || !text.includes('/') || formatCidr(range) !== text.trim()) {
    return {
      ok: false,
      error: `${source} "${text}" is not an IPv4 network like 10.213.0.0/16; ${fix}`
    }
  }
  if (range.prefix > SLICE_PREFIX) {
    return {
      ok: false,
      error: `${source} ${text} is smaller than one /${SLICE_PREFIX} lab slice; ${fix}`
    }
  }
  if (!PRIVATE.some((p) => contains(p, range))) {
    return {
      ok: false,
      error: `${source} ${text} is not a private range (10/8, 172.16/12, 192.168/16, 100.64/10, 198.18/15); ${fix}`
    }
  }
  return { ok: true, range, slices: 2 ** (SLICE_PREFIX - range.prefix) }
}

/** The /20 of instance `n`. */
export function sliceOf(range: Cidr, instance: number): Cidr {
  return { base: (range.base + instance * 2 ** (32 - SLICE_PREFIX)) >>> 0, prefix: SLICE_PREFIX }
}

/** The n-th /24 of a slice: 0 holds the host link, 1..15 are rooms. */
export function subnetOf(slice: Cidr, index: number): Cidr {
  return { base: (slice.base + index * 256) >>> 0, prefix: 24 }
}

/** Host `n` of a network (`hostAt(198.18.1.0/24, 1)` = 198.18.1.1). */
export function hostAt(net: Cidr, n: number): string {
  return intToIp((net.base + n) >>> 0)
}

/** One prefix on the machine that collides with a slice, in words an operator recognises. */
export interface Clash {
  what: string
  prefix: string
}

/**
 * Prefixes (addresses with their networks, and routes) that overlap the slice. `default` routes
 * are ignored: they overlap everything by design and longer prefixes win over them.
 */
export function findClashes(
  slice: Cidr,
  entries: readonly { what: string; prefix: string }[]
): Clash[] {
  const clashes: Clash[] = []
  for (const e of entries) {
    if (e.prefix === 'default') continue
    const c = parseCidr(e.prefix)
    if (c && c.prefix > 0 && overlaps(slice, c)) clashes.push(e)
  }
  return clashes
}
