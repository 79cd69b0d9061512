import type { z } from 'zod'
import type { DecodedCommand } from './codec'
import { ResponseCode } from './codes'
import type { RemotingRequest } from './connection'
import { BadResponseError, RemoteError } from './errors'
import { parseFastjson } from './fastjson'

/** What the request families need from a client: raw requests to an address the caller chose. */
export interface RemotingInvoker {
  invoke(address: string, req: RemotingRequest, timeoutMs?: number): Promise<DecodedCommand>
  invokeOneway(address: string, req: RemotingRequest): Promise<void>
}

/** Per-call options. */
export interface CallOptions {
  timeoutMs?: number
}

type ExtValue = string | number | boolean | undefined | null

/** Drops absent values and stringifies the rest, as Java's makeCustomHeaderToNet does. */
export function toExtFields(fields: Record<string, ExtValue>): Record<string, string> {
  const out: Record<string, string> = {}
  // for-in, not Object.entries: every request builds a header, so no pair array per field.
  for (const k in fields) {
    const v = fields[k]
    if (v !== undefined && v !== null) out[k] = String(v)
  }
  return out
}

/** A request that must answer SUCCESS; any other code is a RemoteError. */
export async function call(
  rpc: RemotingInvoker,
  address: string,
  req: RemotingRequest,
  options: CallOptions
): Promise<DecodedCommand> {
  const res = await rpc.invoke(address, req, options.timeoutMs)
  expectCode(address, req, res, [ResponseCode.SUCCESS])
  return res
}

export function expectCode(
  address: string,
  req: RemotingRequest,
  res: DecodedCommand,
  ok: number[]
): void {
  if (!ok.includes(res.code)) throw new RemoteError(address, req.code, res.code, res.remark)
}

export function parseBody<S extends z.ZodType>(
  address: string,
  res: DecodedCommand,
  schema: S,
  what: string
): z.output<S> {
  const raw = parseFastjson(res.body, address)
  const parsed = schema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'
    throw new BadResponseError(address, `${what} body does not match: ${where}`, parsed.error)
  }
  return parsed.data
}

export function extInt(
  address: string,
  res: DecodedCommand,
  key: string,
  fallback?: number
): number {
  const raw = res.extFields[key]
  if (raw === undefined && fallback !== undefined) return fallback
  const n = raw === undefined ? NaN : Number(raw)
  if (!Number.isSafeInteger(n)) {
    throw new BadResponseError(address, `ext field ${key}=${JSON.stringify(raw)} is not an integer`)
  }
  return n
}
