import { clientTuningOverrideSchema } from '../../../common/scenario/schema'
import { CLIENT_LANES } from '../../../common/topology/lanes'

/** What the Sweep dialog can vary: the lane, or one client setting (the CLI's `--vary` keys). */
export interface SweepSetting {
  /** The flag's key: `lane` or `client.<setting>`. */
  key: string
  label: string
  /** Values to start from, as a scenario writes them. */
  example: string
}

const EXAMPLES: Record<string, string> = {
  requestTimeout: '200ms, 400ms, 800ms',
  maxRequestTimeout: '400ms, 1600ms',
  sendTimeout: '1s, 3s',
  routeRefresh: '1s, 30s',
  probeInterval: '100ms, 1s',
  managementRefresh: '1s, 5s',
  heartbeatInterval: '1s, 30s',
  rebalanceInterval: '1s, 20s',
  pollTimeout: '200ms, 1s',
  hedge: 'true, false',
  keepOffsets: 'true, false',
  freeDepartedLocks: 'true, false',
  orderPolicy: 'wait, reroute',
  policy: 'round-robin, random'
}

export const SWEEP_SETTINGS: readonly SweepSetting[] = [
  { key: 'client.requestTimeout', label: 'requestTimeout', example: EXAMPLES.requestTimeout! },
  ...Object.keys(clientTuningOverrideSchema.shape)
    .filter((k) => k !== 'requestTimeout')
    .map((k) => ({ key: `client.${k}`, label: k, example: EXAMPLES[k] ?? '' })),
  { key: 'lane', label: 'lane', example: CLIENT_LANES.slice(0, 2).join(', ') }
]

/**
 * The `--vary` flag for one setting and the values typed (commas, spaces allowed), or what to fix.
 * The engine checks the values themselves and names a bad one.
 */
export function sweepFlag(key: string, valuesText: string): { flag: string } | { error: string } {
  if (!SWEEP_SETTINGS.some((s) => s.key === key)) return { error: `nothing named ${key} to vary` }
  const values = valuesText
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
  if (values.length < 2) return { error: 'give two or more values, separated by commas' }
  if (new Set(values).size !== values.length) return { error: 'a value appears twice' }
  return { flag: `${key}=${values.join(',')}` }
}
