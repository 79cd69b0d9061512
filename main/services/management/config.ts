import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { idSchema } from '../../../common/topology/schema'

const addressSchema = z
  .string()
  .regex(
    /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}$/,
    'expected "host:port", e.g. 127.0.0.1:9876'
  )
  .refine((a) => {
    const port = Number(a.slice(a.lastIndexOf(':') + 1))
    return port >= 1 && port <= 65535
  }, 'port must be 1-65535')

/** One name server the management node watches (all rooms' name servers go in one list). */
export const managedNameServerSchema = z
  .object({ id: idSchema, room: idSchema, address: addressSchema })
  .strict()

/** One proxy the management node watches; `address` is its gRPC endpoint (host:grpcPort). */
export const managedProxySchema = z
  .object({
    id: idSchema,
    room: idSchema,
    address: addressSchema,
    /** The proxy's remoting endpoint (host:remotingPort), reported as-is. */
    remotingAddress: addressSchema.optional(),
    /** Zone-pinned to its room (the topology's default), reported as-is. */
    zoneMode: z.boolean().default(true)
  })
  .strict()

/**
 * A controller-mode replica: its room is fixed, its role is not. Clients place the group's master
 * in a room by its address (the name server keeps the zone of the replica that registered last).
 */
export const managedBrokerSchema = z
  .object({ id: idSchema, room: idSchema, address: addressSchema })
  .strict()

/** Issues for duplicate ids and addresses inside one list. */
function checkUnique(
  list: readonly { id: string; address: string }[],
  key: string,
  ctx: z.RefinementCtx
): void {
  const seenIds = new Map<string, number>()
  const seenAddresses = new Map<string, number>()
  list.forEach((e, i) => {
    const idAt = seenIds.get(e.id)
    if (idAt !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [key, i, 'id'],
        message: `duplicate id "${e.id}" (also at ${key}[${idAt}])`
      })
    } else seenIds.set(e.id, i)
    const addressAt = seenAddresses.get(e.address)
    if (addressAt !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [key, i, 'address'],
        message: `duplicate address "${e.address}" (also at ${key}[${addressAt}])`
      })
    } else seenAddresses.set(e.address, i)
  })
}

/** The JSON file of `drstudio mgmt --config <file>` and of the sandbox's management.json. */
export const managementConfigSchema = z
  .object({
    id: idSchema,
    room: idSchema,
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 = an ephemeral port, printed on start. */
    port: z.number().int().min(0).max(65535).default(0),
    probeIntervalMs: z.number().int().min(100).max(600_000).default(1000),
    probeTimeoutMs: z.number().int().min(50).max(60_000).default(500),
    /** Consecutive refused or reset probes before a name server is dropped (1 = at once). */
    failuresBeforeDown: z.number().int().min(1).max(100).default(1),
    /**
     * Consecutive failed probes, the last one unanswered in time, before it is dropped; by default
     * 2, or failuresBeforeDown when that is more.
     */
    timeoutsBeforeDown: z.number().int().min(1).max(100).optional(),
    /** Consecutive successful probes before a dropped name server is listed again. */
    successesBeforeUp: z.number().int().min(1).max(100).default(1),
    nameServers: z.array(managedNameServerSchema).min(1, 'list at least one name server'),
    /** Every room's proxies, probed like name servers and listed in GET /v1/nameservers. */
    proxies: z.array(managedProxySchema).default([]),
    /** Controller-mode replicas of every room, listed (not probed) in GET /v1/nameservers. */
    brokers: z.array(managedBrokerSchema).default([])
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.probeTimeoutMs > c.probeIntervalMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['probeTimeoutMs'],
        message: `must not exceed probeIntervalMs (${c.probeIntervalMs})`
      })
    }
    if (c.timeoutsBeforeDown !== undefined && c.timeoutsBeforeDown < c.failuresBeforeDown) {
      // A timeout is weaker evidence than a refusal: it must never drop a name server sooner.
      ctx.addIssue({
        code: 'custom',
        path: ['timeoutsBeforeDown'],
        message: `must be at least failuresBeforeDown (${c.failuresBeforeDown}): an unanswered probe is weaker evidence than a refused one`
      })
    }
    checkUnique(c.nameServers, 'nameServers', ctx)
    checkUnique(c.proxies, 'proxies', ctx)
    checkUnique(c.brokers, 'brokers', ctx)
  })

export type ManagementConfigInput = z.input<typeof managementConfigSchema>
export type ManagementConfig = z.output<typeof managementConfigSchema>

/** A config file that cannot be used; the message names the file, the JSON path and the fix. */
export class ManagementConfigError extends Error {
  readonly file: string
  readonly issues: string[]

  constructor(file: string, issues: string[]) {
    super(
      issues.length === 1
        ? `Invalid management config ${file}: ${issues[0]}`
        : `Invalid management config ${file}:\n${issues.map((i) => `  - ${i}`).join('\n')}`
    )
    this.name = 'ManagementConfigError'
    this.file = file
    this.issues = issues
  }
}

/** Renders a zod path as a JSON path: `$.nameServers[1].address`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = '$'
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`
    else if (typeof p === 'string' && /^[A-Za-z_$][\w$]*$/.test(p)) out += `.${p}`
    else out += `[${JSON.stringify(String(p))}]`
  }
  return out
}

/** Validates already-parsed JSON; `file` only labels the errors. */
export function parseManagementConfig(raw: unknown, file = '<config>'): ManagementConfig {
  const parsed = managementConfigSchema.safeParse(raw)
  if (parsed.success) return parsed.data
  throw new ManagementConfigError(
    file,
    parsed.error.issues.map((i) => `${jsonPath(i.path)}: ${i.message}`)
  )
}

/** Reads and validates a management config file. */
export async function loadManagementConfig(file: string): Promise<ManagementConfig> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(e)
    throw new ManagementConfigError(file, [`cannot read it (${why}); pass an existing JSON file`])
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    throw new ManagementConfigError(file, [`not valid JSON (${(e as Error).message})`])
  }
  return parseManagementConfig(raw, file)
}
