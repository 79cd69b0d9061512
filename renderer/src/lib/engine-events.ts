import type { NodeStatus } from '../../../common/contract'
import { isEventChannel } from '../../../common/contract'
import { useFileStore } from '../stores/file-store'
import { useLiveStore } from '../stores/live-store'
import type { ProgressEvent, SandboxStatus } from '../stores/run-store'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'
import { on, onConnection, onUntyped } from './bridge'
import { FrameBatcher } from './frame-batcher'
import { runMenuCommand } from './commands'

/**
 * The one place engine events enter the renderer: each channel maps to a store action.
 *
 * High-rate channels go through a per-frame batcher. Returns a function that unsubscribes all.
 */
export function subscribeEngineEvents(): () => void {
  const offs: (() => void)[] = []
  const states = new FrameBatcher<NodeStatus>((b) => useRunStore.getState().applyNodeStates(b))
  const progress = new FrameBatcher<ProgressEvent>((b) => useRunStore.getState().applyProgress(b))
  const choices = new FrameBatcher<unknown>((b) => useLiveStore.getState().applyChoices(b))
  const ledger = new FrameBatcher<unknown>((b) => useLiveStore.getState().applyLedgerEvents(b))

  offs.push(on('sandbox:node-state', (p) => states.push(p)))
  offs.push(on('sandbox:progress', (p) => progress.push(p)))
  offs.push(
    on('sandbox:status', (p: SandboxStatus) => {
      useRunStore.getState().applyStatus(p)
      if (!p.running) useLiveStore.getState().reset()
    })
  )
  offs.push(on('recent:changed', (p) => useFileStore.getState().setRecent(p)))
  offs.push(on('menu:command', (p) => runMenuCommand(p.command, 'menu')))
  offs.push(
    on('engine:notice', (p) =>
      useUiStore.getState().toast(p.level === 'warning' ? 'warning' : p.level, p.message)
    )
  )
  offs.push(onConnection((s) => useUiStore.getState().setConnection(s)))

  // Live routing channels are not in the contract yet; they are wired as soon as they are.
  for (const [channel, batcher] of [
    ['client:choice', choices],
    ['ledger:event', ledger]
  ] as const) {
    if (isEventChannel(channel)) offs.push(onUntyped(channel, (p) => batcher.push(p)))
  }
  return () => offs.forEach((off) => off())
}
