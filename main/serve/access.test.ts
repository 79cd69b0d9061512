import { describe, expect, it } from 'vitest'
import { checkAccess, presentedToken, tokenMatches } from './access'

const token = 'per-launch-token-123'
const port = 4321
const base = {
  url: `/?token=${token}`,
  host: `127.0.0.1:${port}`,
  origin: undefined,
  cookie: undefined
}

describe('browser shell access', () => {
  it('accepts the token from the query or the cookie', () => {
    expect(checkAccess(base, token, port)).toEqual({ ok: true })
    expect(
      checkAccess(
        { ...base, url: '/assets/x.js', cookie: `a=1; drstudio_token=${token}` },
        token,
        port
      )
    ).toEqual({ ok: true })
    expect(
      checkAccess(
        { ...base, origin: `http://localhost:${port}`, host: `localhost:${port}` },
        token,
        port
      )
    ).toEqual({ ok: true })
  })

  it('refuses a missing token', () => {
    const d = checkAccess({ ...base, url: '/' }, token, port)
    expect(d).toMatchObject({ ok: false, status: 401 })
    if (!d.ok) expect(d.reason).toMatch(/missing token/)
  })

  it('refuses a wrong token', () => {
    const d = checkAccess({ ...base, url: '/ws?token=nope' }, token, port)
    expect(d).toMatchObject({ ok: false, status: 401 })
    if (!d.ok) expect(d.reason).toMatch(/wrong token/)
    expect(tokenMatches('per-launch-token-12', token)).toBe(false)
  })

  it('refuses a foreign origin even with the right token', () => {
    for (const origin of [
      'http://evil.example',
      `http://127.0.0.1:${port + 1}`,
      'null',
      `https://127.0.0.1:${port}`
    ]) {
      expect(checkAccess({ ...base, origin }, token, port)).toMatchObject({
        ok: false,
        status: 403
      })
    }
  })

  it('refuses a non-loopback Host header (DNS rebinding)', () => {
    expect(checkAccess({ ...base, host: `evil.example:${port}` }, token, port)).toMatchObject({
      ok: false,
      status: 403
    })
    expect(checkAccess({ ...base, host: undefined }, token, port)).toMatchObject({
      ok: false,
      status: 403
    })
  })

  it('reads the token from query before cookie', () => {
    expect(presentedToken({ ...base, url: '/?token=a', cookie: 'drstudio_token=b' })).toBe('a')
    expect(presentedToken({ ...base, url: '/', cookie: 'x=1;drstudio_token=b%3D' })).toBe('b=')
  })
})
