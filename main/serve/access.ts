import { timingSafeEqual } from 'node:crypto'

export type AccessDecision = { ok: true } | { ok: false; status: 401 | 403; reason: string }

export interface AccessRequest {
  url: string
  host: string | undefined
  origin: string | undefined
  cookie: string | undefined
}

/** Constant-time comparison so the token cannot be guessed byte by byte. */
export function tokenMatches(given: string | null | undefined, token: string): boolean {
  if (!given) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Reads the token from `?token=` or the `drstudio_token` cookie. */
export function presentedToken(req: AccessRequest): string | null {
  const query = new URL(req.url, 'http://127.0.0.1').searchParams.get('token')
  if (query) return query
  for (const part of (req.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === 'drstudio_token') return decodeURIComponent(v.join('='))
  }
  return null
}

/**
 * Decides whether a request to the browser shell may proceed.
 *
 * Host is checked against loopback names so a DNS-rebinding page cannot reach us; a foreign
 * Origin is refused even with the right token; the token is required for everything.
 */
export function checkAccess(req: AccessRequest, token: string, port: number): AccessDecision {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`]
  if (!req.host || !allowedHosts.includes(req.host.toLowerCase())) {
    return {
      ok: false,
      status: 403,
      reason: `host "${req.host ?? ''}" is not this loopback server`
    }
  }
  if (req.origin !== undefined && req.origin !== 'null') {
    const allowedOrigins = allowedHosts.map((h) => `http://${h}`)
    if (!allowedOrigins.includes(req.origin.toLowerCase())) {
      return { ok: false, status: 403, reason: `origin "${req.origin}" is not allowed` }
    }
  } else if (req.origin === 'null') {
    return { ok: false, status: 403, reason: 'opaque origin is not allowed' }
  }
  const given = presentedToken(req)
  if (!given) {
    return {
      ok: false,
      status: 401,
      reason:
        'missing token: open the URL printed by `drstudio serve` (it carries the per-launch token)'
    }
  }
  if (!tokenMatches(given, token)) {
    return {
      ok: false,
      status: 401,
      reason: 'wrong token: this server was restarted or the URL is stale'
    }
  }
  return { ok: true }
}
