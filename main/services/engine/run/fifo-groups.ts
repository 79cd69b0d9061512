import type { RunContext } from './run-context'
import { pause } from './run-context'

/**
 * A gRPC lane's ordered consumers need a FIFO subscription group (`consumeMessageOrderly`): the
 * proxy pops such a group's queue one batch at a time. A run that creates its topics creates these
 * groups on every serving master before any consumer starts (a proxy caches a group's config once
 * it has read it). On an attached cluster the groups are the operator's: the run says what it needs.
 */
export async function prepareFifoGroups(
  ctx: Pick<RunContext, 'plan' | 'admin' | 'clock' | 'signal' | 'readyTimeoutMs' | 'notes'>,
  masters: readonly { address: string; brokerName: string }[]
): Promise<void> {
  const groups = ctx.plan.fifoGroups
  if (groups.length === 0) return
  if (ctx.plan.topicPolicy !== 'create') {
    ctx.notes.push(
      `ordered messages on a gRPC lane need FIFO consumer groups (${groups.join(', ')}): ` +
        'DR Studio did not create them on this cluster; without `mqadmin updateSubGroup -g <group> -o true` ' +
        'the proxy delivers each queue out of order'
    )
    return
  }
  const create = ctx.admin.updateAndCreateSubscriptionGroup?.bind(ctx.admin)
  if (!create) throw new Error('this run cannot create FIFO consumer groups (no admin call for it)')
  const deadline = ctx.clock.now() + ctx.readyTimeoutMs
  const pending = masters.flatMap((m) => groups.map((groupName) => ({ ...m, groupName })))
  while (pending.length > 0) {
    const left = [...pending]
    pending.length = 0
    for (const p of left) {
      try {
        await create(
          p.address,
          { groupName: p.groupName, consumeMessageOrderly: true },
          { timeoutMs: 3000 }
        )
      } catch (e) {
        if (ctx.clock.now() > deadline) {
          throw new Error(
            `cannot create FIFO consumer group ${p.groupName} on ${p.brokerName}: ${(e as Error).message}`
          )
        }
        pending.push(p)
      }
    }
    if (ctx.signal.aborted) throw new Error('cancelled while creating consumer groups')
    if (pending.length > 0) await pause(200, ctx.signal)
  }
}
