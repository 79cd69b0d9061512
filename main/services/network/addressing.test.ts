import { describe, expect, it } from 'vitest'
import {
  DEFAULT_RANGE,
  findClashes,
  formatCidr,
  intToIp,
  ipToInt,
  labRange,
  overlaps,
  parseCidr,
  parseRange,
  sliceOf,
  subnetOf
} from './addressing'

const c = (t: string) => parseCidr(t)!

describe('addressing', () => {
  it('converts addresses both ways and masks networks', () => {
    expect(ipToInt('198.18.0.1')).toBe(0xc6120001)
    expect(intToIp(0xc6120001)).toBe('198.18.0.1')
    expect(ipToInt('256.1.1.1')).toBeNull()
    expect(ipToInt('1.2.3')).toBeNull()
    expect(formatCidr(c('198.18.5.7/20'))).toBe('198.18.0.0/20')
    expect(formatCidr(c('10.0.0.1'))).toBe('10.0.0.1/32')
    expect(parseCidr('10.0.0.0/33')).toBeNull()
    expect(parseCidr('10.0.0.0/8/1')).toBeNull()
  })

  it('detects overlap in every arrangement', () => {
    expect(overlaps(c('198.18.0.0/20'), c('198.18.15.255/32'))).toBe(true)
    expect(overlaps(c('198.18.0.0/20'), c('198.18.16.0/24'))).toBe(false)
    expect(overlaps(c('198.18.0.0/20'), c('198.0.0.0/8'))).toBe(true)
    expect(overlaps(c('198.18.16.0/20'), c('198.18.0.0/20'))).toBe(false)
  })

  it('carves 32 /20 slices from the default range, one /24 per room', () => {
    const r = parseRange(DEFAULT_RANGE)
    expect(r).toMatchObject({ ok: true, slices: 32 })
    if (!r.ok) return
    expect(formatCidr(sliceOf(r.range, 0))).toBe('198.18.0.0/20')
    expect(formatCidr(sliceOf(r.range, 1))).toBe('198.18.16.0/20')
    expect(formatCidr(sliceOf(r.range, 31))).toBe('198.19.240.0/20')
    expect(formatCidr(subnetOf(sliceOf(r.range, 1), 3))).toBe('198.18.19.0/24')
  })

  it('accepts only aligned private ranges of at least one slice, naming the env var and a fix', () => {
    expect(parseRange('10.213.0.0/16')).toMatchObject({ ok: true, slices: 16 })
    expect(parseRange('172.16.0.0/20')).toMatchObject({ ok: true, slices: 1 })
    for (const bad of ['10.213.1.0/16', '10.213.0.0/21', '8.8.0.0/16', 'nonsense', '10.0.0.1']) {
      const r = parseRange(bad)
      expect(r.ok, bad).toBe(false)
      if (!r.ok) expect(r.error).toContain('DRSTUDIO_NET_RANGE')
    }
    expect(labRange({})).toBe(DEFAULT_RANGE)
    expect(labRange({ DRSTUDIO_NET_RANGE: ' 10.1.0.0/16 ' })).toBe('10.1.0.0/16')
  })

  it('finds clashing addresses and routes, ignoring default routes', () => {
    const slice = c('198.18.16.0/20')
    expect(
      findClashes(slice, [
        { what: 'route default', prefix: 'default' },
        { what: 'address 192.0.2.2/24', prefix: '192.0.2.2/24' },
        { what: 'route 198.18.0.0/15', prefix: '198.18.0.0/15' },
        { what: 'route 198.18.17.5', prefix: '198.18.17.5' },
        { what: 'route 198.18.0.0/20', prefix: '198.18.0.0/20' },
        { what: 'garbage', prefix: 'fe80::/64' }
      ]).map((x) => x.what)
    ).toEqual(['route 198.18.0.0/15', 'route 198.18.17.5'])
  })
})
