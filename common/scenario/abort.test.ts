import { describe, expect, it } from 'vitest'
import { evaluateAbort, pruneSends, sendsInWindow } from './abort'
import type { Op } from './metrics'
import { abortSchema, scenarioSchema } from './schema'

function sends(
  n: number,
  opts: { from?: number; step?: number; latency?: number; ok?: (i: number) => boolean } = {}
): Op[] {
  const from = opts.from ?? 0
  const step = opts.step ?? 100
  const latency = opts.latency ?? 10
  return Array.from({ length: n }, (_, i) => {
    const startMs = from + i * step
    return { startMs, endMs: startMs + latency, ok: opts.ok ? opts.ok(i) : true }
  })
}

describe('abortSchema', () => {
  it('needs at least one limit', () => {
    expect(abortSchema.safeParse({}).success).toBe(false)
    expect(abortSchema.safeParse({ windowMs: '5s' }).success).toBe(false)
  })

  it('applies defaults and parses durations', () => {
    expect(abortSchema.parse({ maxFailedShare: 0.1, windowMs: '5s' })).toEqual({
      maxFailedShare: 0.1,
      windowMs: 5000,
      minSends: 20
    })
  })

  it('is optional in a scenario and kept when given', () => {
    const base = { name: 's', topology: 'two-rooms' }
    expect(scenarioSchema.parse(base).abort).toBeUndefined()
    expect(scenarioSchema.parse({ ...base, abort: { maxSendP99Ms: 800 } }).abort).toEqual({
      maxSendP99Ms: 800,
      windowMs: 10_000,
      minSends: 20
    })
    expect(scenarioSchema.safeParse({ ...base, abort: { maxFailedShare: 2 } }).success).toBe(false)
  })
})

describe('sendsInWindow / pruneSends', () => {
  it('keeps sends that ended inside (now - window, now]', () => {
    const s = sends(10, { step: 1000, latency: 0 })
    expect(sendsInWindow(s, 9000, 3000).map((x) => x.endMs)).toEqual([7000, 8000, 9000])
    expect(pruneSends(s, 9000, 3000).map((x) => x.endMs)).toEqual([7000, 8000, 9000])
  })

  it('returns the same array when nothing is stale', () => {
    const s = sends(3, { from: 5000 })
    expect(pruneSends(s, 5300, 10_000)).toBe(s)
  })
})

describe('evaluateAbort', () => {
  const rules = abortSchema.parse({ maxFailedShare: 0.1, maxSendP99Ms: 500, minSends: 10 })

  it('judges nothing before minSends sends are in the window', () => {
    const s = sends(9, { ok: () => false })
    expect(evaluateAbort(rules, s, 1000)).toEqual({ breached: false, sends: 9 })
  })

  it('passes a healthy window', () => {
    expect(evaluateAbort(rules, sends(50), 5000)).toEqual({ breached: false, sends: 50 })
  })

  it('breaches on the failed share with a sentence that names the numbers', () => {
    const s = sends(20, { ok: (i) => i % 4 !== 0 })
    const v = evaluateAbort(rules, s, 2000)
    expect(v).toMatchObject({
      breached: true,
      rule: 'maxFailedShare',
      actual: 0.25,
      limit: 0.1,
      sends: 20
    })
    if (!v.breached) return
    expect(v.reason).toBe(
      '5 of 20 sends failed (25%) in the last 10 s, above abort.maxFailedShare 10%'
    )
  })

  it('does not breach at exactly the limit', () => {
    const s = sends(20, { ok: (i) => i >= 2 })
    expect(evaluateAbort(rules, s, 2000).breached).toBe(false)
  })

  it('breaches on p99 of acknowledged sends only', () => {
    const slow = sends(20, { latency: 900 })
    const v = evaluateAbort(rules, slow, 3000)
    expect(v).toMatchObject({ breached: true, rule: 'maxSendP99Ms', actual: 900, limit: 500 })
    if (v.breached) expect(v.reason).toContain('above abort.maxSendP99Ms 500 ms')
    // Failed sends with long timeouts do not count towards the latency rule.
    const p99Only = abortSchema.parse({ maxSendP99Ms: 500, minSends: 10 })
    const mixed = [
      ...sends(18, { latency: 20 }),
      ...sends(2, { from: 10, latency: 3000, ok: () => false })
    ]
    expect(evaluateAbort(p99Only, mixed, 5000).breached).toBe(false)
  })

  it('forgets failures that left the window', () => {
    const old = sends(20, { ok: () => false })
    const fresh = sends(20, { from: 20_000 })
    expect(evaluateAbort(rules, [...old, ...fresh], 22_500)).toEqual({
      breached: false,
      sends: 20
    })
  })
})
