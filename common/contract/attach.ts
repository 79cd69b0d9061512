import { z } from 'zod'
import { event, request } from './define'
import { openedTopologySchema } from './topology'

/** What Connect to cluster… sends: the same choices as `drstudio discover`. */
export const clusterDiscoverInputSchema = z.object({
  /** `host:port;host:port`; may be empty when an address server is given. */
  namesrv: z.string().max(10_000).default(''),
  addressServer: z.string().max(2000).optional(),
  /** auto = by zone when every broker has one, else by the map or pattern given. */
  rooms: z.enum(['auto', 'zone', 'map', 'regex']).default('auto'),
  /** Room-map text (YAML or JSON), as in `--rooms-map`. */
  roomMap: z.string().max(1_000_000).optional(),
  brokerPattern: z.string().max(1000).optional(),
  namesrvPattern: z.string().max(1000).optional(),
  topic: z.string().max(255).optional(),
  /** One producer and one consumer per room on `topic`. */
  clients: z.boolean().default(false),
  /** The user lets DR Studio create `topic` on this cluster (off unless ticked). */
  createTopic: z.boolean().default(false)
})

export const clusterDiscoverOutputSchema = z.object({
  ok: z.boolean(),
  /** The discovered topology, untitled; null when problems keep it from being built. */
  opened: openedTopologySchema.nullable(),
  rooms: z.array(
    z.object({ id: z.string(), name: z.string(), nameServers: z.number(), brokers: z.number() })
  ),
  nameServers: z.array(
    z.object({ address: z.string(), ok: z.boolean(), error: z.string().optional() })
  ),
  problems: z.array(
    z.object({ code: z.string(), subject: z.string(), message: z.string(), fix: z.string() })
  ),
  warnings: z.array(z.string()),
  /** The named topic's check; `lines` are the message and fixes as shown. */
  topic: z.object({ ok: z.boolean(), lines: z.array(z.string()) }).nullable()
})
export type ClusterDiscoverOutput = z.infer<typeof clusterDiscoverOutputSchema>

export const attachRequests = {
  'cluster:discover': request(clusterDiscoverInputSchema, clusterDiscoverOutputSchema)
}

export const attachEvents = {
  'cluster:discover-progress': event(
    z.object({
      step: z.string(),
      message: z.string(),
      done: z.number().optional(),
      total: z.number().optional()
    })
  )
}
