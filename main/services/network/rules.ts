import type { BlockMode } from '../../../common/scenario/schema'
import type { NodeRule } from './faults'
import type { DirectedLink, EffectiveLink } from './links'
import { directedLinks } from './links'
import type { NetworkPlan } from './plan'
import { DELAY_TABLE, IFACE } from './plan'

/** The nftables table DR Studio owns inside each of its namespaces (and nowhere else). */
export const NFT_TABLE = 'drstudio'

/** How a lab adds latency: netem on kernels that have it, else the TUN delay router. */
export type DelayMechanism = 'netem' | 'tun'

/** nft statements that stop a packet: drop silently, or fail the sender at once. */
export function blockStatements(match: string, mode: BlockMode): string[] {
  if (mode === 'drop') return [`${match} drop`]
  // TCP gets a reset (connect fails with ECONNREFUSED, a live stream with ECONNRESET); anything
  // else an ICMP error, so UDP senders and pings learn at once too.
  return [
    `${match} meta l4proto tcp reject with tcp reset`,
    `${match} reject with icmpx type admin-prohibited`
  ]
}

/** Random loss with 0.01 % resolution (`numgen` has no fractions). */
export function lossStatement(match: string, pct: number): string | null {
  const per10k = Math.round(pct * 100)
  if (per10k <= 0) return null
  if (per10k >= 10_000) return `${match} drop`
  return `${match} numgen random mod 10000 < ${per10k} drop`
}

/** Atomic replace: one `nft -f` transaction that (re)creates the table or, with no chains, removes it. */
export function replaceTable(chains: readonly string[]): string {
  const head = `table inet ${NFT_TABLE} {}\ndelete table inet ${NFT_TABLE}\n`
  if (chains.length === 0) return head
  return `${head}table inet ${NFT_TABLE} {\n${chains.join('\n')}\n}\n`
}

function chain(name: string, hook: string, rules: readonly string[]): string {
  const body = rules.map((r) => `    ${r}`).join('\n')
  return `  chain ${name} {\n    type filter hook ${hook} priority 0; policy accept;\n${body}\n  }`
}

function directedStatements(match: string, link: DirectedLink): string[] {
  if (link.blocked) return blockStatements(match, link.blocked)
  const loss = lossStatement(match, link.lossPct)
  return loss ? [loss] : []
}

/**
 * The core's forward ruleset for the room links (cuts and loss). Only room subnets are matched, so
 * engine↔node traffic through the core is never faulted. Packets coming back from the delay
 * router were judged on their way in and pass.
 */
export function coreRuleset(plan: NetworkPlan, links: readonly EffectiveLink[]): string {
  const subnet = new Map(plan.rooms.map((r) => [r.id, r.subnet]))
  const rules: string[] = []
  for (const { src, dst, link } of directedLinks(links)) {
    rules.push(
      ...directedStatements(`ip saddr ${subnet.get(src)} ip daddr ${subnet.get(dst)}`, link)
    )
  }
  if (rules.length === 0) return replaceTable([])
  return replaceTable([chain('forward', 'forward', [`iifname "${IFACE.tun}" accept`, ...rules])])
}

/** One node's ruleset; `isolate` keeps only the engine reachable. */
export function nodeRuleset(plan: NetworkPlan, rules: readonly NodeRule[]): string {
  const byChain = { input: [] as string[], output: [] as string[] }
  for (const r of rules) {
    const dirWord = r.chain === 'output' ? 'daddr' : 'saddr'
    const iface = r.chain === 'output' ? `oifname "${IFACE.nodeEth}"` : `iifname "${IFACE.nodeEth}"`
    const peer = r.cidr === null ? `ip ${dirWord} != ${plan.host.addr}` : `ip ${dirWord} ${r.cidr}`
    const match = `${iface} ${peer}`
    if (r.verdict.kind === 'block') byChain[r.chain].push(...blockStatements(match, r.verdict.mode))
    else {
      const loss = lossStatement(match, r.verdict.pct)
      if (loss) byChain[r.chain].push(loss)
    }
  }
  const chains: string[] = []
  if (byChain.output.length) chains.push(chain('output', 'output', byChain.output))
  if (byChain.input.length) chains.push(chain('input', 'input', byChain.input))
  return replaceTable(chains)
}

/** Shaping of one source room on one room's uplink (traffic entering that room). */
export interface ShapedFlow {
  srcRoom: string
  srcCidr: string
  /** HTB class minor, hex, unique per uplink. */
  classMinor: string
  rateMbit: number | null
  /** Set in netem mode only; the TUN router handles delay otherwise. */
  netem: { latencyMs: number; jitterMs: number } | null
}

/**
 * Bandwidth (and, with netem, delay) per directed room pair, as HTB classes on the core end of the
 * destination room's uplink: that is where every packet into the room leaves the core.
 */
export function shapingPlan(
  plan: NetworkPlan,
  links: readonly EffectiveLink[],
  mechanism: DelayMechanism
): Map<string, ShapedFlow[]> {
  const out = new Map<string, ShapedFlow[]>(plan.rooms.map((r) => [r.coreIf, []]))
  for (const { src, dst, link } of directedLinks(links)) {
    const delayed = mechanism === 'netem' && (link.latencyMs > 0 || link.jitterMs > 0)
    if (link.bandwidthMbit === null && !delayed) continue
    const s = plan.rooms.find((r) => r.id === src)!
    const d = plan.rooms.find((r) => r.id === dst)!
    out.get(d.coreIf)!.push({
      srcRoom: src,
      srcCidr: s.subnet,
      classMinor: (0x10 + s.index).toString(16),
      rateMbit: link.bandwidthMbit,
      netem: delayed ? { latencyMs: link.latencyMs, jitterMs: link.jitterMs } : null
    })
  }
  return out
}

/** Rate with a quantum HTB accepts without warnings (one MTU up to its maximum). */
function htbRate(mbit: number | null): string {
  if (mbit === null) return 'rate 100gbit quantum 200000'
  const kbit = Math.max(8, Math.round(mbit * 1000))
  const quantum = Math.min(200_000, Math.max(1514, Math.round((kbit * 1000) / 8 / 10)))
  return `rate ${kbit}kbit ceil ${kbit}kbit quantum ${quantum}`
}

/** `tc -batch` lines that build one uplink's shaping from nothing; empty = no qdisc at all. */
export function tcBatch(dev: string, flows: readonly ShapedFlow[]): string[] {
  if (flows.length === 0) return []
  const lines = [
    `qdisc add dev ${dev} root handle 1: htb default 1`,
    `class add dev ${dev} parent 1: classid 1:1 htb ${htbRate(null)}`
  ]
  for (const f of flows) {
    lines.push(
      `class add dev ${dev} parent 1: classid 1:${f.classMinor} htb ${htbRate(f.rateMbit)}`
    )
    if (f.netem) {
      const jitter = f.netem.jitterMs > 0 ? ` ${f.netem.jitterMs}ms` : ''
      lines.push(
        `qdisc add dev ${dev} parent 1:${f.classMinor} handle ${f.classMinor}: netem delay ${f.netem.latencyMs}ms${jitter} limit 10000`
      )
    }
    lines.push(
      `filter add dev ${dev} parent 1: protocol ip prio 1 u32 match ip src ${f.srcCidr} flowid 1:${f.classMinor}`
    )
  }
  return lines
}

/** One delayed direction through the TUN router: a policy rule and a router `set` line. */
export interface DelayedPair {
  key: string
  /** ip rule preference: fixed per directed pair, so adds and deletes diff cleanly. */
  pref: number
  iif: string
  srcCidr: string
  dstCidr: string
  latencyUs: number
  jitterUs: number
}

export function delayedPairs(plan: NetworkPlan, links: readonly EffectiveLink[]): DelayedPair[] {
  const out: DelayedPair[] = []
  for (const { src, dst, link } of directedLinks(links)) {
    if (link.latencyMs <= 0 && link.jitterMs <= 0) continue
    const s = plan.rooms.find((r) => r.id === src)!
    const d = plan.rooms.find((r) => r.id === dst)!
    out.push({
      key: `${src}>${dst}`,
      pref: 1000 + s.index * 16 + d.index,
      iif: s.coreIf,
      srcCidr: s.subnet,
      dstCidr: d.subnet,
      latencyUs: Math.round(link.latencyMs * 1000),
      jitterUs: Math.round(link.jitterMs * 1000)
    })
  }
  return out
}

/** `ip rule` arguments of a delayed pair (after `ip -n <core> rule add|del`). */
export function delayRuleArgs(p: DelayedPair): string[] {
  return [
    'pref',
    String(p.pref),
    'iif',
    p.iif,
    'from',
    p.srcCidr,
    'to',
    p.dstCidr,
    'lookup',
    String(DELAY_TABLE)
  ]
}

/** The router's stdin line for a pair. */
export function routerSetLine(p: DelayedPair): string {
  return `set ${p.srcCidr} ${p.dstCidr} ${p.latencyUs} ${p.jitterUs}`
}
