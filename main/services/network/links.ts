import type { BlockMode } from '../../../common/scenario/schema'
import type { LinkSpec } from '../../../common/topology/schema'
import type { ActiveFault } from './faults'
import { directedPairs } from './faults'
import type { NetworkPlan } from './plan'

/** What one direction of a room link does to packets right now. */
export interface DirectedLink {
  blocked: BlockMode | null
  lossPct: number
  latencyMs: number
  jitterMs: number
  bandwidthMbit: number | null
}

/** A room pair as the canvas draws it: configured shape, the effect of faults each way, and which faults. */
export interface EffectiveLink {
  key: string
  a: string
  b: string
  configured: LinkSpec
  /** Packets from a to b. */
  ab: DirectedLink
  ba: DirectedLink
  faultIds: string[]
}

function fromSpec(spec: LinkSpec): DirectedLink {
  return {
    blocked: null,
    lossPct: spec.lossPct,
    latencyMs: spec.latencyMs,
    jitterMs: spec.jitterMs,
    bandwidthMbit: spec.bandwidthMbit
  }
}

/**
 * The link model: each room pair starts as configured (both ways) and every room-scope fault, in
 * the order applied, overrides the fields it names on the directions it covers. Healing a fault
 * therefore returns a link to its configured shape, or to what an earlier fault still says.
 */
export function effectiveLinks(
  plan: Pick<NetworkPlan, 'rooms' | 'links'>,
  faults: readonly ActiveFault[]
): EffectiveLink[] {
  const links = plan.links.map<EffectiveLink>((l) => ({
    key: l.key,
    a: l.a,
    b: l.b,
    configured: l.configured,
    ab: fromSpec(l.configured),
    ba: fromSpec(l.configured),
    faultIds: []
  }))
  const directed = (
    src: string,
    dst: string
  ): { link: EffectiveLink; dir: DirectedLink } | null => {
    for (const link of links) {
      if (link.a === src && link.b === dst) return { link, dir: link.ab }
      if (link.b === src && link.a === dst) return { link, dir: link.ba }
    }
    return null
  }
  for (const active of faults) {
    if (active.scope !== 'room') continue
    const f = active.fault
    const pairs =
      f.action === 'isolate'
        ? plan.rooms
            .filter((r) => r.id !== f.target)
            .flatMap((r) => directedPairs(f.target, r.id, 'both'))
        : directedPairs(f.target, f.peer, f.direction)
    for (const [src, dst] of pairs) {
      const hit = directed(src, dst)
      if (!hit) continue
      if (!hit.link.faultIds.includes(active.id)) hit.link.faultIds.push(active.id)
      const d = hit.dir
      switch (f.action) {
        case 'isolate':
        case 'partition':
          d.blocked = f.mode
          break
        case 'delay':
          d.latencyMs = f.latencyMs
          d.jitterMs = f.jitterMs
          break
        case 'loss':
          d.lossPct = f.lossPct
          break
        case 'bandwidth':
          d.bandwidthMbit = f.mbit
          break
      }
    }
  }
  return links
}

/** Every direction as (source room, destination room, state), for the rule compilers. */
export function directedLinks(
  links: readonly EffectiveLink[]
): { src: string; dst: string; link: DirectedLink }[] {
  return links.flatMap((l) => [
    { src: l.a, dst: l.b, link: l.ab },
    { src: l.b, dst: l.a, link: l.ba }
  ])
}
