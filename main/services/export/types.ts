import { z } from 'zod'

/** The latest run of one scenario against this topology, as the README reports it. */
export const scenarioResultSchema = z.object({
  scenario: z.string().min(1),
  /** e.g. pass, fail, error, interrupted. */
  verdict: z.string().min(1),
  /** Worst per-client RTO (architecture §4) among clients that recovered; null when none had to. */
  rtoMs: z.number().nonnegative().nullable(),
  /** Some client never recovered after a fault. */
  unrecovered: z.boolean().optional(),
  /** Acknowledged sends never consumed. */
  lost: z.number().int().nonnegative(),
  duplicates: z.number().int().nonnegative().optional(),
  runId: z.number().int().optional(),
  /** Epoch milliseconds when the run ended. */
  endedAt: z.number()
})
export type ScenarioResult = z.infer<typeof scenarioResultSchema>

/** Latest scenario results recorded for a topology; the recorder or the CLI supplies them. */
export const latestResultsSchema = z.object({
  topologyName: z.string().optional(),
  scenarios: z.array(scenarioResultSchema)
})
export type LatestResults = z.infer<typeof latestResultsSchema>

/**
 * What an export writes: everything, only the Grafana dashboard, Kubernetes manifests, or (from a
 * scenario file) Chaos Mesh objects.
 */
export const EXPORT_TARGETS = ['all', 'grafana', 'kubernetes', 'chaos-mesh'] as const
export type ExportTarget = (typeof EXPORT_TARGETS)[number]

export interface ExportOptions {
  outDir: string
  /** Default `all`. */
  target?: ExportTarget
  results?: LatestResults | null
  /** How start-management.sh invokes DR Studio; `drstudio` when absent. */
  drstudioCommand?: string
  /** Placeholder values (`<room1-broker-1-host>` → `10.1.0.5`) to write into the production files. */
  values?: Record<string, string>
}

export type RenderOptions = Omit<ExportOptions, 'outDir' | 'target'>

export interface ExportResult {
  /** Paths relative to outDir, sorted. */
  files: string[]
}
