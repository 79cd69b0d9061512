import { z } from 'zod'
import type { ManagementAnswer } from '../room-aware/ports'
import type { ProxyCandidate } from './choose-proxy'

const proxyEntrySchema = z.object({
  id: z.string(),
  room: z.string(),
  address: z.string(),
  zoneMode: z.boolean().default(true),
  available: z.boolean().nullable().default(null)
})

/**
 * The proxies of a management answer (`GET /v1/nameservers`). Entries that do not parse are
 * dropped rather than failing the whole list: one bad row must not cut a client off.
 */
export function proxiesOf(answer: ManagementAnswer | undefined): ProxyCandidate[] {
  const raw = (answer as { proxies?: unknown } | undefined)?.proxies
  if (!Array.isArray(raw)) return []
  return raw.flatMap((r) => {
    const p = proxyEntrySchema.safeParse(r)
    return p.success ? [p.data] : []
  })
}
