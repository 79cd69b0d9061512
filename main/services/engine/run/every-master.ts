import type { RunContext } from './run-context'
import { pause } from './run-context'

/** A broker a run creates its topics and groups on. */
export interface MasterBroker {
  address: string
  brokerName: string
}

/**
 * Makes `create` succeed on every one of `masters`: those that fail are tried again every 200 ms
 * (a broker still registering) until the ready timeout, then the error names `what` and the broker.
 */
export async function createOnEveryMaster(
  ctx: Pick<RunContext, 'clock' | 'signal' | 'readyTimeoutMs'>,
  masters: readonly MasterBroker[],
  what: string,
  create: (m: MasterBroker) => Promise<void>
): Promise<void> {
  const deadline = ctx.clock.now() + ctx.readyTimeoutMs
  let pending = [...masters]
  while (pending.length > 0) {
    const failed: MasterBroker[] = []
    for (const m of pending) {
      try {
        await create(m)
      } catch (e) {
        if (ctx.clock.now() > deadline) {
          throw new Error(`cannot create ${what} on ${m.brokerName}: ${(e as Error).message}`)
        }
        failed.push(m)
      }
    }
    if (ctx.signal.aborted) throw new Error(`cancelled while creating ${what}`)
    pending = failed
    if (pending.length > 0) await pause(200, ctx.signal)
  }
}
