import type { LinkSpec, NetworkSettings } from './schema'
import { linkSpecSchema, networkSettingsSchema } from './schema'

/** The key every per-pair link entry uses besides `default`. */
export const DEFAULT_LINK_KEY = 'default'

export type LinkKeyResult = { ok: true; a: string; b: string } | { ok: false; error: string }

/** Splits `room1~room2`; order does not matter to callers, so compare with `samePair`. */
export function parseLinkKey(key: string): LinkKeyResult {
  const parts = key.split('~')
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    return { ok: false, error: `link key "${key}" is not of the form "roomA~roomB"` }
  }
  const [a, b] = parts.map((p) => p.trim()) as [string, string]
  if (a === b) return { ok: false, error: `link key "${key}" links room "${a}" to itself` }
  return { ok: true, a, b }
}

/** Canonical key of an unordered room pair, in the order the topology lists the rooms. */
export function linkKey(a: string, b: string, roomOrder: readonly string[]): string {
  return roomOrder.indexOf(a) <= roomOrder.indexOf(b) ? `${a}~${b}` : `${b}~${a}`
}

/** The network settings of a topology with every default filled in. */
export function networkSettingsOf(network: NetworkSettings | undefined): NetworkSettings {
  return network ?? networkSettingsSchema.parse({})
}

/**
 * The link between two rooms as configured (before faults): `links.default`, then the pair's own
 * entry field by field. Unknown or malformed keys are the validator's business; they are ignored here.
 */
export function configuredLink(
  network: NetworkSettings | undefined,
  a: string,
  b: string
): LinkSpec {
  const links = networkSettingsOf(network).links
  const base = linkSpecSchema.parse(links[DEFAULT_LINK_KEY] ?? {})
  for (const [key, override] of Object.entries(links)) {
    if (key === DEFAULT_LINK_KEY) continue
    const parsed = parseLinkKey(key)
    if (!parsed.ok) continue
    if ((parsed.a === a && parsed.b === b) || (parsed.a === b && parsed.b === a)) {
      return {
        latencyMs: override.latencyMs ?? base.latencyMs,
        jitterMs: override.jitterMs ?? base.jitterMs,
        lossPct: override.lossPct ?? base.lossPct,
        bandwidthMbit:
          override.bandwidthMbit === undefined ? base.bandwidthMbit : override.bandwidthMbit
      }
    }
  }
  return base
}
