import { describe, expect, it } from 'vitest'
import type { ChaosWindow } from '../export/chaos-mesh/timeline-windows'
import type { ChaosFaults, ChaosTiming } from './chaos-faults'
import { planFaults, replayFaults } from './fault-replay'

// The replay's order and timing with a scripted ChaosFaults (what it does with the cluster is
// tested against the stand-in in chaos-faults.test.ts).

const ctx = { namespace: 'drs-t', rooms: new Set(['room1', 'room2']) }
const pair = (startMs: number, endMs: number, latencyMs: number): ChaosWindow => ({
  kind: 'network',
  chaos: {
    action: 'netem',
    from: 'room1',
    to: 'room2',
    direction: 'both',
    delay: { latencyMs, jitterMs: 0 }
  },
  startMs,
  endMs
})

function scripted(healMs: number) {
  const log: string[] = []
  const t0 = Date.now()
  const stamp = () => Date.now() - t0
  const timing = (name: string): ChaosTiming => ({
    name,
    requestedAt: Date.now(),
    observedAt: Date.now(),
    boundMs: 1
  })
  const faults = {
    inject: async ({ object }: { object: { metadata: { name: string } } }) => {
      log.push(`inject ${object.metadata.name} ${stamp()}`)
      return timing(object.metadata.name)
    },
    heal: async ({ object }: { object: { metadata: { name: string } } }) => {
      await new Promise((r) => setTimeout(r, healMs))
      log.push(`healed ${object.metadata.name} ${stamp()}`)
      return timing(object.metadata.name)
    }
  } as unknown as ChaosFaults
  const deps = {
    faults,
    now: () => Date.now(),
    sleep: (ms: number, signal?: AbortSignal) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms)
        signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true })
      })
  }
  return { log, deps }
}

const at = (line: string) => Number(line.split(' ').at(-1))

describe('replayFaults', () => {
  it("starts the next window of a pair only once the previous one's heal is done", async () => {
    const { log, deps } = scripted(80)
    const plan = { windows: [pair(0, 50, 10), pair(50, 120, 30)], notes: [], endMs: 120 }
    const played = await replayFaults({
      deps,
      runId: 'r',
      faults: planFaults(ctx, plan, 'r'),
      timeoutMs: 1000
    })
    expect(played.every((f) => f.healed)).toBe(true)
    const [first, second] = played.map((f) => f.object)
    const healedFirst = at(log.find((l) => l.startsWith(`healed ${first}`))!)
    const injectSecond = at(log.find((l) => l.startsWith(`inject ${second}`))!)
    // Due at 50 ms, but the first object is gone only at ~130 ms.
    expect(injectSecond).toBeGreaterThanOrEqual(healedFirst)
  })

  it('heals a pod-kill as soon as it took effect, and heals what is in effect at a stop, playing nothing more', async () => {
    const { log, deps } = scripted(5)
    const kill: ChaosWindow = { kind: 'pod-kill', nodes: ['broker-1'], startMs: 0 }
    const later: ChaosWindow = { kind: 'pod-failure', nodes: ['ns-1'], startMs: 700, endMs: 800 }
    const plan = { windows: [kill, pair(0, 1000, 10), later], notes: [], endMs: 1000 }
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 100)
    const played = await replayFaults({
      deps,
      runId: 'r',
      faults: planFaults(ctx, plan, 'r'),
      timeoutMs: 1000,
      signal: stop.signal
    })
    expect(played[0]!.healDueMs).toBeNull()
    expect(played[0]!.healed).toBeDefined()
    // The pair was in effect at the stop: healed then, not at its end (1000 ms).
    expect(at(log.find((l) => l.startsWith(`healed ${played[1]!.object}`))!)).toBeLessThan(700)
    expect(played[2]).not.toHaveProperty('injected')
    expect(played[2]).not.toHaveProperty('error')
  })
})
