/** Thrown when our own per-attempt deadline ends before the library answers. */
export class AttemptTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`)
  }
}

/**
 * Races `work` against `ms`. The library's own minimum request timeout is 1000 ms, too slow to
 * notice a hung (SIGSTOPped) proxy, so the lane keeps a shorter deadline of its own; the library
 * call is left to finish in the background (a late success can surface as a duplicate).
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(Math.round(ms))), Math.max(1, ms))
  })
  work.catch(() => undefined)
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** A short, stable failure reason for the ledger (gRPC status names, no stack traces). */
export function reasonOf(e: unknown): string {
  if (e instanceof AttemptTimeout) return `timeout (${e.ms} ms)`
  const err = e as { code?: unknown; message?: unknown; cause?: unknown }
  const msg = typeof err?.message === 'string' ? err.message : String(e)
  const grpc = /\b(\d+) ([A-Z_]+):/.exec(msg)
  if (grpc) return grpc[2]!.toLowerCase()
  return msg.split('\n')[0]!.slice(0, 160)
}
