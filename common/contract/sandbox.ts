import { z } from 'zod'
import { networkFaultSchema } from '../scenario/schema'
import { linkSpecSchema } from '../topology/schema'
import { event, request } from './define'

export const nodeStateSchema = z.enum([
  'stopped',
  'starting',
  'up',
  /** A controller-mode replica up while its group has no master acting yet. */
  'electing',
  /** A controller-mode replica up while its group's SyncStateSet is short of the replicas expected. */
  'syncing',
  'paused',
  'killed',
  'down',
  'failed',
  'attached',
  /** An attached node that answers, but slower than half its probe timeout. */
  'slow'
])
/** Lifecycle of one node as the sandbox, the canvas and the ledger know it: the one list. */
export type NodeState = z.infer<typeof nodeStateSchema>

export const nodeActionSchema = z.enum(['start', 'stop', 'kill', 'pause', 'resume', 'restart'])
export type NodeAction = z.infer<typeof nodeActionSchema>

export const nodeStatusSchema = z.object({
  nodeId: z.string(),
  kind: z.string(),
  room: z.string(),
  state: nodeStateSchema,
  address: z.string().optional(),
  pid: z.number().optional(),
  detail: z.string().optional(),
  /** An operator's node DR Studio watches but does not run (the canvas marks it "not ours"). */
  attached: z.boolean().optional(),
  restorable: z.boolean().optional(),
  /**
   * A controller-mode replica: how long after its JVM was up its group accepted writes with the
   * SyncStateSet the sandbox expects (the time it spent electing and syncing).
   */
  readyInMs: z.number().optional()
})
export type NodeStatus = z.infer<typeof nodeStatusSchema>

export const sandboxStatusSchema = z.object({
  running: z.boolean(),
  runId: z.number().nullable(),
  startedAt: z.number().nullable(),
  nodes: z.array(nodeStatusSchema)
})

const directedLinkSchema = z.object({
  blocked: z.enum(['drop', 'reject']).nullable(),
  lossPct: z.number(),
  latencyMs: z.number(),
  jitterMs: z.number(),
  bandwidthMbit: z.number().nullable()
})

/** The rooms' networks as the canvas draws them: mode, why faults are off, links, active faults. */
export const networkStatusSchema = z.object({
  mode: z.enum(['namespaces', 'loopback']),
  faultsDisabled: z.string().nullable(),
  notice: z.string().nullable(),
  links: z.array(
    z.object({
      key: z.string(),
      a: z.string(),
      b: z.string(),
      /** The link as the topology configures it, before faults (the engine always sends it). */
      configured: linkSpecSchema.optional(),
      ab: directedLinkSchema,
      ba: directedLinkSchema,
      faultIds: z.array(z.string())
    })
  ),
  faults: z.array(
    z.object({
      id: z.string(),
      scope: z.enum(['room', 'node']),
      appliedAt: z.number(),
      fault: z.record(z.string(), z.unknown())
    })
  )
})
export type NetworkStatusPayload = z.infer<typeof networkStatusSchema>

export const sandboxRequests = {
  'sandbox:start': request(z.object({ document: z.unknown() }), sandboxStatusSchema),
  'sandbox:stop': request(z.object({}), sandboxStatusSchema),
  'sandbox:status': request(z.object({}), sandboxStatusSchema),
  'node:action': request(
    z.object({
      nodeId: z.string().min(1),
      action: nodeActionSchema,
      /**
       * The user confirmed running the operator's own command on a node DR Studio does not run
       * (asked before the first destructive action of a session on an attached cluster).
       */
      confirmed: z.boolean().optional()
    }),
    nodeStatusSchema
  ),
  /** A network fault or heal from the canvas (same vocabulary as scenario timelines). */
  'network:action': request(z.object({ fault: networkFaultSchema }), networkStatusSchema),
  'network:status': request(z.object({}), networkStatusSchema),
  'node:log': request(
    z.object({
      nodeId: z.string().min(1),
      tailBytes: z.number().int().min(1).max(4_000_000).default(65536)
    }),
    z.object({ path: z.string(), text: z.string() })
  )
}

export const sandboxEvents = {
  'sandbox:node-state': event(nodeStatusSchema),
  'sandbox:progress': event(z.object({ nodeId: z.string(), message: z.string(), at: z.number() })),
  'sandbox:status': event(sandboxStatusSchema),
  'sandbox:network': event(networkStatusSchema)
}
