import type { EventPayload, NodeStatus } from '../../../common/contract'
import { useConnectStore } from '../stores/connect-store'
import { useControllerStore } from '../stores/controller-store'
import { answerDocumentQuery, useFileStore } from '../stores/file-store'
import { useLiveStore } from '../stores/live-store'
import { useMetricsStore } from '../stores/metrics-store'
import { useNamesrvStore } from '../stores/namesrv-store'
import { useNetworkStore } from '../stores/network-store'
import { useRunsStore } from '../stores/runs-store'
import type { ProgressEvent, SandboxStatus } from '../stores/run-store'
import { useRunStore } from '../stores/run-store'
import type { ScenarioProgress } from '../stores/scenario-store'
import { useScenarioStore } from '../stores/scenario-store'
import { useStallStore } from '../stores/stall-store'
import { useTimelineStore } from '../stores/timeline-store'
import { useUiStore } from '../stores/ui-store'
import { on, onConnection } from './bridge'
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
  const ledger = new FrameBatcher<EventPayload<'ledger:event'>>((b) => {
    useLiveStore.getState().applyLedgerEvents(b)
    useTimelineStore.getState().applyLedgerEvents(b)
    useNamesrvStore.getState().applyLedgerEvents(b)
    useControllerStore.getState().applyLedgerEvents(b)
    useStallStore.getState().applyLedgerEvents(b)
    useRunStore.getState().applyLedgerEvents(b)
  })
  const scenarioProgress = new FrameBatcher<ScenarioProgress>((b) =>
    useScenarioStore.getState().applyProgress(b)
  )

  offs.push(on('sandbox:node-state', (p) => states.push(p)))
  offs.push(on('sandbox:progress', (p) => progress.push(p)))
  offs.push(
    on('sandbox:status', (p: SandboxStatus) => {
      useRunStore.getState().applyStatus(p)
      if (!p.running) {
        useLiveStore.getState().reset()
        useMetricsStore.getState().reset()
        useControllerStore.getState().reset()
        useStallStore.getState().reset()
      }
    })
  )
  // Rare (Start, Stop, each fault): applied as it comes.
  offs.push(on('sandbox:network', (p) => useNetworkStore.getState().applyStatus(p)))
  offs.push(on('recent:changed', (p) => useFileStore.getState().setRecent(p)))
  offs.push(on('menu:command', (p) => runMenuCommand(p.command, 'menu')))
  offs.push(
    on('document:query', (q) => {
      answerDocumentQuery(q).catch((e: Error) =>
        useUiStore.getState().toast('error', `Could not answer the close check: ${e.message}`)
      )
    })
  )
  offs.push(
    on('engine:notice', (p) =>
      useUiStore.getState().toast(p.level === 'warning' ? 'warning' : p.level, p.message)
    )
  )
  offs.push(onConnection((s) => useUiStore.getState().setConnection(s)))

  offs.push(on('client:choice', (p) => choices.push(p)))
  offs.push(on('ledger:event', (p) => ledger.push(p)))
  // Already throttled by the engine (one snapshot per ~500 ms): applied as it comes.
  offs.push(
    on('live:metrics', (p) => {
      useMetricsStore.getState().apply(p)
      useLiveStore
        .getState()
        .setRates(Object.fromEntries(p.clients.map((c) => [c.clientId, c.rate])))
    })
  )
  offs.push(on('scenario:progress', (p) => scenarioProgress.push(p)))
  offs.push(
    on('scenario:state', (p) => {
      useScenarioStore.getState().applyState(p)
      // A run elsewhere (a Kubernetes context) is over: its nodes leave the canvas with it.
      if (!p.running && !useRunStore.getState().running) {
        useRunStore.setState({ nodes: {}, states: {} })
        useLiveStore.getState().reset()
      }
    })
  )
  offs.push(on('scenario:report', (p) => useScenarioStore.getState().applyReport(p)))
  offs.push(on('runs:changed', (p) => useRunsStore.getState().applyChanged(p.runId)))
  offs.push(on('cluster:discover-progress', (p) => useConnectStore.getState().applyProgress(p)))
  return () => offs.forEach((off) => off())
}
