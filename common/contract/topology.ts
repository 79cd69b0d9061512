import { z } from 'zod'
import { event, request } from './define'

export const problemSchema = z.object({
  code: z.string(),
  path: z.string(),
  message: z.string(),
  hint: z.string(),
  nodeId: z.string().optional(),
  severity: z.enum(['error', 'warning', 'info']).optional()
})

/** A topology travels as plain JSON; the engine validates it with common/topology before use. */
const documentSchema = z.unknown()

export const openedTopologySchema = z.object({
  path: z.string().nullable(),
  name: z.string(),
  document: documentSchema,
  problems: z.array(problemSchema)
})

export const recentFileSchema = z.object({
  path: z.string(),
  name: z.string(),
  openedAt: z.number()
})

export const topologyRequests = {
  'topology:default': request(z.object({}), openedTopologySchema),
  'topology:builtin': request(
    z.object({}),
    z.array(z.object({ id: z.string(), name: z.string(), description: z.string() }))
  ),
  'topology:open-builtin': request(z.object({ id: z.string().min(1) }), openedTopologySchema),
  'topology:open': request(z.object({ path: z.string().min(1) }), openedTopologySchema),
  /** Parses text the browser shell read with a file picker. */
  'topology:parse': request(
    z.object({ text: z.string().max(20_000_000), name: z.string() }),
    openedTopologySchema
  ),
  'topology:save': request(
    z.object({ path: z.string().min(1), document: documentSchema }),
    z.object({ path: z.string(), problems: z.array(problemSchema) })
  ),
  'topology:validate': request(
    z.object({ document: documentSchema }),
    z.object({ problems: z.array(problemSchema) })
  ),
  'recent:list': request(z.object({}), z.array(recentFileSchema))
}

export const topologyEvents = {
  'recent:changed': event(z.array(recentFileSchema))
}
