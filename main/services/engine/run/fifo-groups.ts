import type { RunContext } from './run-context'
import type { MasterBroker } from './every-master'
import { createOnEveryMaster } from './every-master'

/**
 * A gRPC lane's ordered consumers need a FIFO subscription group (`consumeMessageOrderly`): the
 * proxy pops such a group's queue one batch at a time. A run that creates its topics creates these
 * groups on every serving master before any consumer starts (a proxy caches a group's config once
 * it has read it). On an attached cluster the groups are the operator's: the run says what it needs.
 */
export async function prepareFifoGroups(
  ctx: Pick<RunContext, 'plan' | 'admin' | 'clock' | 'signal' | 'readyTimeoutMs' | 'notes'>,
  masters: readonly MasterBroker[]
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
  for (const groupName of groups) {
    await createOnEveryMaster(ctx, masters, `FIFO consumer group ${groupName}`, (m) =>
      create(m.address, { groupName, consumeMessageOrderly: true }, { timeoutMs: 3000 })
    )
  }
}
