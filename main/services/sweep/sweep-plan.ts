import type { ClientTuningOverride, LaneEntry } from '../../../common/scenario/schema'
import { clientTuningOverrideSchema } from '../../../common/scenario/schema'
import type { ClientLane } from '../../../common/topology/lanes'
import { CLIENT_LANES } from '../../../common/topology/lanes'

/** One `--vary` flag: a lane list, or one client setting and its values. */
export type SweepAxis =
  | { key: 'lane'; values: ClientLane[] }
  | { key: keyof ClientTuningOverride; values: { text: string; value: unknown }[] }

/** One combination of the axes, run as one lane variant of a run. */
export interface SweepCombination {
  /** The lane variant's name (its topic and group carry it): s1, s2, … */
  name: string
  /** What it sets, as the user wrote it: `lane=java-tuned requestTimeout=200ms`. */
  label: string
  lane: ClientLane
  client: ClientTuningOverride
}

/** More combinations than this in one sweep is a matrix for a benchmark, not a sweep. */
export const MAX_COMBINATIONS = 12

const SETTINGS = Object.keys(clientTuningOverrideSchema.shape) as (keyof ClientTuningOverride)[]

/**
 * Reads `--vary` flags: `lane=remoting,java-tuned` or `client.<setting>=v1,v2` (any client setting
 * a scenario's `client` block takes, values as a scenario writes them). Throws naming the flag
 * and the fix.
 */
export function parseVary(flags: readonly string[]): SweepAxis[] {
  if (flags.length === 0) {
    throw new Error('name what to vary, e.g. --vary client.requestTimeout=200ms,400ms,800ms')
  }
  const seen = new Set<string>()
  return flags.map((flag) => {
    const m = /^([\w.]+)=(.+)$/.exec(flag.trim())
    if (!m) throw new Error(`--vary ${flag}: write key=value,value (e.g. client.hedge=true,false)`)
    const [, key, list] = m as unknown as [string, string, string]
    const values = list.split(',').map((v) => v.trim())
    if (values.length < 2 || values.some((v) => v === '')) {
      throw new Error(`--vary ${flag}: give two or more values, separated by commas`)
    }
    if (new Set(values).size !== values.length) {
      throw new Error(`--vary ${flag}: a value appears twice`)
    }
    const name = key === 'lane' ? 'lane' : key.replace(/^client\./, '')
    if (seen.has(name)) throw new Error(`--vary ${flag}: ${name} is varied twice; give one list`)
    seen.add(name)
    if (key === 'lane') {
      const bad = values.find((v) => !(CLIENT_LANES as readonly string[]).includes(v))
      if (bad)
        throw new Error(`--vary ${flag}: no lane "${bad}"; lanes: ${CLIENT_LANES.join(', ')}`)
      return { key: 'lane', values: values as ClientLane[] }
    }
    const setting = SETTINGS.find((s) => `client.${s}` === key)
    if (!setting) {
      throw new Error(
        `--vary ${flag}: no client setting "${key}"; vary lane or one of ${SETTINGS.map((s) => `client.${s}`).join(', ')}`
      )
    }
    const field = clientTuningOverrideSchema.shape[setting]
    return {
      key: setting,
      values: values.map((text) => {
        const parsed = field.safeParse(coerce(text))
        if (!parsed.success || parsed.data === undefined) {
          throw new Error(`--vary ${flag}: "${text}" is not a value of client.${setting}`)
        }
        return { text, value: parsed.data }
      })
    }
  })
}

/** Every combination of the axes, in flag order; the lane defaults to `baseLane`. */
export function sweepCombinations(
  axes: readonly SweepAxis[],
  baseLane: ClientLane
): SweepCombination[] {
  let combos: { lane: ClientLane; client: ClientTuningOverride; label: string[] }[] = [
    { lane: baseLane, client: {}, label: [] }
  ]
  for (const axis of axes) {
    combos = combos.flatMap((c) =>
      axis.key === 'lane'
        ? axis.values.map((lane) => ({ ...c, lane, label: [...c.label, `lane=${lane}`] }))
        : axis.values.map((v) => ({
            ...c,
            client: { ...c.client, [axis.key]: v.value },
            label: [...c.label, `${axis.key}=${v.text}`]
          }))
    )
  }
  if (combos.length > MAX_COMBINATIONS) {
    throw new Error(
      `${combos.length} combinations is more than a sweep runs (${MAX_COMBINATIONS}); vary fewer values, or use npm run bench:failover for a matrix`
    )
  }
  return combos.map((c, i) => ({
    name: `s${i + 1}`,
    label: c.label.join(' '),
    lane: c.lane,
    client: c.client
  }))
}

/** The `workload.lanes` entries of a batch of combinations (each its own topic and group). */
export function laneEntriesOf(combos: readonly SweepCombination[]): LaneEntry[] {
  return combos.map((c) => ({ lane: c.lane, name: c.name, client: c.client }))
}

/** Splits the combinations into runs of at most `perRun` lanes, so a 2-core machine keeps up. */
export function batchesOf<T>(items: readonly T[], perRun: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += perRun) out.push(items.slice(i, i + perRun))
  return out
}

function coerce(text: string): unknown {
  if (text === 'true') return true
  if (text === 'false') return false
  return /^\d+$/.test(text) ? Number(text) : text
}
