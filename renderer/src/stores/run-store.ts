import { create } from 'zustand'
import type { NodeAction, NodeState, NodeStatus } from '../../../common/contract'
import { nodeStatusSchema } from '../../../common/contract/sandbox'
import { renderNodeAction } from '../../../common/topology'
import { confirmationText, needsConfirmation } from '../../../common/topology/action-policy'
import { invoke } from '../lib/bridge'
import { useEditorStore } from './editor-store'
import { toast, useUiStore } from './ui-store'

export interface ProgressEvent {
  nodeId: string
  message: string
  at: number
}

export interface SandboxStatus {
  running: boolean
  runId: number | null
  startedAt: number | null
  nodes: NodeStatus[]
}

export interface RunState {
  running: boolean
  runId: number | null
  startedAt: number | null
  busy: 'starting' | 'stopping' | null
  nodes: Record<string, NodeStatus>
  /** Node id → state, the only part the canvas reads. */
  states: Record<string, NodeState>
  /** Last progress line per node while it starts. */
  progress: Record<string, string>
  /** The live run's phase (setup, settle, workload, …) from its ledger, once it has one. */
  phase: { runId: number; phase: string } | null
  start(): Promise<void>
  stop(): Promise<void>
  refresh(): Promise<void>
  /** The user confirmed an operator command on an attached cluster this session (engine asks once). */
  operatorConfirmed: boolean
  nodeAction(nodeId: string, action: NodeAction): Promise<void>
  /**
   * An action on a node DR Studio does not run: the operator's own command from the topology,
   * asked about (with the command shown) before the first destructive one of the session.
   */
  operatorAction(nodeId: string, action: NodeAction): Promise<void>
  showLog(nodeId: string): Promise<void>
  applyStatus(status: SandboxStatus): void
  applyNodeStates(batch: readonly NodeStatus[]): void
  applyProgress(batch: readonly ProgressEvent[]): void
  /** `ledger:event`: keeps the newest `phase` row (other kinds are the Timeline's). */
  applyLedgerEvents(batch: readonly { runId: number; kind: string; data: unknown }[]): void
}

const ACTION_PAST: Record<NodeAction, string> = {
  start: 'started',
  stop: 'stopped',
  kill: 'killed',
  pause: 'paused',
  resume: 'resumed',
  restart: 'restarted'
}

/** Sandbox run: whether it runs, since when, and the state of every node. */
export const useRunStore = create<RunState>()((set, get) => ({
  running: false,
  runId: null,
  startedAt: null,
  busy: null,
  nodes: {},
  states: {},
  progress: {},
  phase: null,
  operatorConfirmed: false,

  async start() {
    if (get().busy || get().running) return
    const { problems, history } = useEditorStore.getState()
    if (problems.length) {
      toast(
        'error',
        `Fix ${problems.length} problem${problems.length > 1 ? 's' : ''} before starting (see Problems)`
      )
      return
    }
    set({ busy: 'starting', progress: {} })
    try {
      get().applyStatus(await invoke('sandbox:start', { document: history.present }))
      toast('success', 'Sandbox started')
    } catch (err) {
      toast('error', `Start failed: ${(err as Error).message}`)
    } finally {
      set({ busy: null })
    }
  },

  async stop() {
    if (get().busy === 'stopping') return
    set({ busy: 'stopping' })
    try {
      get().applyStatus(await invoke('sandbox:stop', {}))
      toast('info', 'Sandbox stopped')
    } catch (err) {
      toast('error', `Stop failed: ${(err as Error).message}`)
    } finally {
      set({ busy: null })
    }
  },

  async refresh() {
    try {
      get().applyStatus(await invoke('sandbox:status', {}))
    } catch {
      // An engine without a sandbox yet simply has nothing running.
    }
  },

  async nodeAction(nodeId, action) {
    try {
      const status = await invoke('node:action', { nodeId, action })
      get().applyNodeStates([status])
      toast('info', `${nodeId} ${ACTION_PAST[action]}`)
    } catch (err) {
      toast('error', `${action} ${nodeId} failed: ${(err as Error).message}`)
    }
  },

  async operatorAction(nodeId, action) {
    const rendered = renderNodeAction(useEditorStore.getState().history.present, nodeId, action)
    if (!rendered) {
      toast('error', `${nodeId} has no ${action} command; add "actions": {"${action}": "…"} to it`)
      return
    }
    let confirmed = false
    if (needsConfirmation(action, { confirmed: get().operatorConfirmed })) {
      const address = get().nodes[nodeId]?.address
      const q = confirmationText(
        { id: nodeId, ...(address ? { address } : {}) },
        action,
        rendered.command
      )
      if ((await useUiStore.getState().ask(q)) !== 'confirm') return
      confirmed = true
    }
    try {
      const status = await invoke('node:action', { nodeId, action, confirmed })
      if (confirmed) set({ operatorConfirmed: true })
      get().applyNodeStates([status])
      toast('info', `${nodeId}: ran your ${action} command`)
    } catch (err) {
      toast('error', `${action} ${nodeId} failed: ${(err as Error).message}`)
    }
  },

  async showLog(nodeId) {
    const ui = useUiStore.getState()
    ui.setLog({ nodeId, path: '', text: '', loading: true })
    try {
      const log = await invoke('node:log', { nodeId })
      if (useUiStore.getState().log?.nodeId === nodeId) {
        ui.setLog({ nodeId, path: log.path, text: log.text, loading: false })
      }
    } catch (err) {
      if (useUiStore.getState().log?.nodeId === nodeId) {
        ui.setLog({ nodeId, path: '', text: '', loading: false, error: (err as Error).message })
      }
    }
  },

  applyStatus(status) {
    const nodes: Record<string, NodeStatus> = {}
    const states: Record<string, NodeState> = {}
    for (const n of status.nodes) {
      nodes[n.nodeId] = n
      states[n.nodeId] = n.state
    }
    set({
      running: status.running,
      runId: status.runId,
      startedAt: status.startedAt,
      nodes,
      states,
      // The engine forgets the confirmation when the sandbox stops; so does the renderer.
      ...(status.running ? {} : { progress: {}, phase: null, operatorConfirmed: false })
    })
  },

  applyNodeStates(batch) {
    if (!batch.length) return
    const s = get()
    let nodes = s.nodes
    let states = s.states
    let progress = s.progress
    for (const n of batch) {
      if (nodes === s.nodes) nodes = { ...nodes }
      nodes[n.nodeId] = n
      if (states[n.nodeId] !== n.state) {
        if (states === s.states) states = { ...states }
        states[n.nodeId] = n.state
        if (n.state === 'failed')
          toast('error', `${n.nodeId} failed${n.detail ? `: ${n.detail}` : ''}`)
      }
      if (n.state !== 'starting' && progress[n.nodeId] !== undefined) {
        if (progress === s.progress) progress = { ...progress }
        delete progress[n.nodeId]
      }
    }
    set({ nodes, states, progress })
  },

  applyLedgerEvents(batch) {
    let phase = get().phase
    const nodes: NodeStatus[] = []
    const sandboxRuns = get().running
    for (const e of batch) {
      const value = e.kind === 'phase' ? (e.data as { phase?: unknown } | null)?.phase : undefined
      if (typeof value === 'string') phase = { runId: e.runId, phase: value }
      // A run elsewhere (a Kubernetes context) has no sandbox events: its ledger's node states are
      // the canvas's. The sandbox's own events carry more (address, readiness) and win while it runs.
      if (e.kind === 'node-state' && !sandboxRuns) {
        const n = nodeStatusSchema.safeParse(e.data)
        if (n.success) nodes.push(n.data)
      }
    }
    if (phase !== get().phase) set({ phase })
    get().applyNodeStates(nodes)
  },

  applyProgress(batch) {
    if (!batch.length) return
    const progress = { ...get().progress }
    for (const p of batch) progress[p.nodeId] = p.message
    set({ progress })
  }
}))
