import type { z } from 'zod'
import type { Handlers, RequestChannel } from './index'
import { isRequestChannel, requests } from './index'

/** A contract violation at the boundary: unknown channel or a payload that does not match its schema. */
export class ContractError extends Error {
  constructor(
    readonly channel: string,
    message: string
  ) {
    super(message)
    this.name = 'ContractError'
  }
}

/** The first few zod issues as `field: message; …`, for errors that name the field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(payload)'}: ${i.message}`)
    .join('; ')
}

/** Validates a raw payload for a channel; throws ContractError naming the channel and the field. */
export function parseRequest(
  channel: unknown,
  payload: unknown
): { channel: RequestChannel; input: unknown } {
  if (!isRequestChannel(channel)) {
    throw new ContractError(String(channel), `unknown request channel "${String(channel)}"`)
  }
  const parsed = requests[channel].input.safeParse(payload ?? {})
  if (!parsed.success) {
    throw new ContractError(
      channel,
      `invalid payload for "${channel}": ${describeIssues(parsed.error)}`
    )
  }
  return { channel, input: parsed.data }
}

/** Builds the one function both transports call: validate, then run the typed handler. */
export function createDispatcher(handlers: Handlers) {
  return async (channel: unknown, payload: unknown): Promise<unknown> => {
    const req = parseRequest(channel, payload)
    const handler = handlers[req.channel] as (input: unknown) => Promise<unknown>
    return handler(req.input)
  }
}
