import { z } from 'zod'
import { ledgerEventSchema } from '../scenario/events'
import { event, request } from './define'
import { DNS_LABEL } from '../topology/kubernetes-settings'

export const runRowSchema = z.object({
  id: z.number(),
  kind: z.string(),
  topologyName: z.string(),
  scenarioName: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  verdict: z.string().nullable()
})
export type RunRowView = z.infer<typeof runRowSchema>

export const storedEventSchema = z.object({
  id: z.number(),
  atMs: z.number(),
  kind: z.string(),
  clientId: z.string().nullable(),
  room: z.string().nullable(),
  data: z.record(z.string(), z.unknown())
})

export const counterSampleSchema = z.object({
  atMs: z.number(),
  clientId: z.string(),
  values: z.record(z.string(), z.number())
})

export const builtinScenarioSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  topology: z.string()
})

/** A client's current name-server and broker choice, with topology node ids for the canvas. */
export const liveChoiceEventSchema = z.object({
  runId: z.number().nullable(),
  clientId: z.string(),
  role: z.enum(['producer', 'consumer']),
  room: z.string(),
  namesrvId: z.string().nullable(),
  namesrvRoom: z.string().nullable(),
  /** Node id of the broker (master) in the topology, when it can be resolved from its name. */
  brokerId: z.string().nullable(),
  brokerName: z.string().nullable(),
  brokerRoom: z.string().nullable(),
  at: z.number()
})

/**
 * Throttled live figures of the run in progress (`live:metrics`, every ~500 ms): computed by the
 * engine from the same rows the ledger records, over a sliding window of `windowMs`.
 */
export const liveMetricsSchema = z.object({
  runId: z.number().nullable(),
  atMs: z.number(),
  windowMs: z.number().positive(),
  clients: z.array(
    z.object({
      clientId: z.string(),
      room: z.string(),
      role: z.enum(['producer', 'consumer']),
      /** Sends acknowledged (producers) or messages delivered (consumers) per second. */
      rate: z.number().nonnegative(),
      /** p99 of send latency (from the scheduled time) or of delivery lag (from birth), ms. */
      p99Ms: z.number().nullable(),
      /** Failed sends, failed attempts and failed pulls in the window. */
      failures: z.number().int().nonnegative()
    })
  ),
  brokers: z.array(
    z.object({
      brokerName: z.string(),
      /** Topology node id of the master, when it resolves. */
      brokerId: z.string().nullable(),
      room: z.string().nullable(),
      /** Messages stored per second (acknowledged sends). */
      tps: z.number().nonnegative(),
      /** Messages delivered from it per second. */
      deliveredPerSecond: z.number().nonnegative()
    })
  ),
  /** Per client edge (client → broker): messages per second. */
  edges: z.array(
    z.object({
      clientId: z.string(),
      brokerName: z.string(),
      brokerId: z.string().nullable(),
      rate: z.number().nonnegative()
    })
  ),
  /**
   * Traffic that crossed rooms, per direction (sends: client room → broker room; deliveries:
   * broker room → consumer room). Totals since the run began, rates over the window. Replication
   * apart: commit-log bytes the replicas in `toRoom` copied from masters in `fromRoom` since the
   * run began (the brokers' HA status, read every 2 s), and their rate between the last two reads.
   */
  roomLinks: z.array(
    z.object({
      fromRoom: z.string(),
      toRoom: z.string(),
      messages: z.number().int().nonnegative(),
      bytes: z.number().nonnegative(),
      rate: z.number().nonnegative(),
      bytesPerSecond: z.number().nonnegative(),
      replicationBytes: z.number().nonnegative().default(0),
      replicationBytesPerSecond: z.number().nonnegative().default(0)
    })
  )
})
export type LiveMetrics = z.infer<typeof liveMetricsSchema>

/** A scenario run on a Kubernetes cluster: a context of the user's kubeconfig (docs/kubernetes.md). */
export const runTargetSchema = z.object({
  kind: z.literal('kubernetes'),
  context: z.string().min(1),
  namespace: z.string().regex(DNS_LABEL, 'a Kubernetes namespace name').optional()
})
export type RunTarget = z.infer<typeof runTargetSchema>

export const kubeContextSchema = z.object({
  name: z.string(),
  server: z.string().nullable(),
  namespace: z.string().nullable(),
  current: z.boolean()
})
export type KubeContextInfo = z.infer<typeof kubeContextSchema>

export const runsRequests = {
  'scenario:list': request(z.object({}), z.array(builtinScenarioSchema)),
  /**
   * The contexts of the user's kubeconfig ($KUBECONFIG's first file, else ~/.kube/config), for the
   * run target selector; `problem` says why there are none (no file, not a kubeconfig).
   */
  'kubernetes:contexts': request(
    z.object({}),
    z.object({
      kubeconfig: z.string(),
      contexts: z.array(kubeContextSchema),
      problem: z.string().nullable()
    })
  ),
  /**
   * Starts a scenario (built-in id or a file path) on the sandbox; its report arrives as
   * `scenario:report`. With `vary` (the CLI's `--vary` flags: `client.requestTimeout=200ms,800ms`,
   * `lane=remoting,java-tuned`) it is a what-if sweep: every combination side by side under the same
   * faults, `runs` times; each run's report carries the whole sweep.
   */
  'scenario:run': request(
    z
      .object({
        id: z.string().min(1).optional(),
        path: z.string().min(1).optional(),
        vary: z.array(z.string().min(1)).min(1).max(3).optional(),
        runs: z.number().int().min(1).max(20).optional(),
        /** Where it runs: this machine's sandbox (absent), or a kubeconfig context. */
        target: runTargetSchema.optional()
      })
      .refine((v) => !(v.target && v.vary), {
        message:
          'a sweep runs its settings side by side in one run, which a Kubernetes run cannot: sweep on this machine, or run one setting on Kubernetes',
        path: ['target']
      })
      .refine((v) => v.runs === undefined || v.vary !== undefined, {
        message: 'runs is for a sweep: give vary too (e.g. client.requestTimeout=200ms,800ms)',
        path: ['runs']
      })
      .refine(
        (v) => !!v.id !== !!v.path,
        'give exactly one of id (a built-in scenario) or path (a scenario file)'
      ),
    z.object({ started: z.literal(true), scenario: z.string() })
  ),
  'scenario:cancel': request(z.object({}), z.object({ cancelled: z.boolean() })),
  'runs:list': request(
    z.object({ limit: z.number().int().min(1).max(1000).default(200) }),
    z.array(runRowSchema)
  ),
  /**
   * A run: its row, report, events (counters excluded) and counter samples. Without `afterId` the
   * first 5000 events by time. With `afterId` (0 for the start) one page of `limit` events in
   * ledger (id) order, `nextAfterId` set while more follow, and counters only on the first page:
   * how a replay reads a whole run. `topology` is the document the run was started with.
   */
  'runs:get': request(
    z.object({
      id: z.number().int(),
      afterId: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(20_000).optional()
    }),
    z.object({
      run: runRowSchema,
      report: z.unknown().nullable(),
      events: z.array(storedEventSchema),
      counters: z.array(counterSampleSchema),
      topology: z.unknown().optional(),
      nextAfterId: z.number().int().nullable().optional()
    })
  ),
  'runs:delete': request(z.object({ id: z.number().int() }), z.object({ deleted: z.boolean() })),
  'runs:export': request(
    z.object({ id: z.number().int() }),
    z.object({ fileName: z.string(), json: z.string() })
  ),
  /** One run as a self-contained HTML report (no scripts, no network), to save or share. */
  'runs:export-html': request(
    z.object({ id: z.number().int() }),
    z.object({ fileName: z.string(), html: z.string() })
  ),
  /** Writes production configuration for the document into outDir (see `drstudio export`). */
  'topology:export': request(
    z.object({ document: z.unknown(), outDir: z.string().min(1) }),
    z.object({ outDir: z.string(), files: z.array(z.string()) })
  ),
  'topology:lint': request(
    z.object({ document: z.unknown() }),
    z.object({
      findings: z.array(
        z.object({
          ruleId: z.string(),
          severity: z.enum(['error', 'warning', 'info']),
          message: z.string(),
          hint: z.string(),
          nodeIds: z.array(z.string()),
          path: z.string()
        })
      )
    })
  )
}

export const runsEvents = {
  'scenario:progress': event(
    z.object({
      runId: z.number().nullable(),
      phase: z.string(),
      message: z.string(),
      atMs: z.number()
    })
  ),
  'scenario:state': event(
    z.object({
      running: z.boolean(),
      scenario: z.string().nullable(),
      runId: z.number().nullable()
    })
  ),
  'scenario:report': event(z.object({ report: z.unknown() })),
  'ledger:event': event(ledgerEventSchema),
  'client:choice': event(liveChoiceEventSchema),
  'live:metrics': event(liveMetricsSchema),
  'runs:changed': event(z.object({ runId: z.number().nullable() }))
}
