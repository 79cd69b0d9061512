import type { NodeProps } from '@xyflow/react'
import { Handle, Position } from '@xyflow/react'
import { AlertTriangle, EllipsisVertical, Link2 } from 'lucide-react'
import type { KeyboardEvent, MouseEvent } from 'react'
import { memo, useCallback, useLayoutEffect, useRef } from 'react'
import type { ComponentFlowNode } from '../model/flow-model'
import { effectiveNodeState, nodeAriaLabel, readinessNote } from '../model/flow-model'
import { useLiveStore } from '../stores/live-store'
import { useReplayStore } from '../stores/replay-store'
import { useRunStore } from '../stores/run-store'
import { useScenarioStore } from '../stores/scenario-store'
import { describeStalls, useStallStore } from '../stores/stall-store'
import { useUiStore } from '../stores/ui-store'
import { ControllerBadge } from './controller-badge'
import { KindIcon } from './kind-icon'
import { useCanvasLod } from './lod'
import { BrokerTps, ClientFiguresLine } from './node-figures'

const HIDDEN_STATES = new Set(['stopped'])

/**
 * Second line: the start-up step while starting, what a replica's group still waits for, the live
 * address of a server, else the design.
 */
function detailLine(
  kind: ComponentFlowNode['data']['kind'],
  state: string,
  subtitle: string,
  progress: string | undefined,
  address: string | undefined,
  readiness: ReturnType<typeof readinessNote>
): string {
  if (state === 'starting' && progress) return progress
  if (readiness?.replaces) return readiness.text
  if (
    address &&
    state !== 'stopped' &&
    kind !== 'broker' &&
    kind !== 'producer' &&
    kind !== 'consumer'
  ) {
    return address
  }
  return subtitle
}

function openMenuAt(nodeId: string, el: HTMLElement, returnFocus: HTMLElement | null) {
  const r = el.getBoundingClientRect()
  useUiStore.getState().openNodeMenu({ nodeId, x: r.left, y: r.bottom + 4, returnFocus })
}

/** A RocketMQ component on the canvas: icon, id, one-line detail, run state badge, actions. */
function ComponentNodeView({ data, selected }: NodeProps<ComponentFlowNode>) {
  const { nodeId, kind, subtitle, problems, attached } = data
  const isClient = kind === 'producer' || kind === 'consumer'
  // Run state comes straight from the run store, so an engine event re-renders this node only.
  const reported = useRunStore((s) => s.states[nodeId])
  // A scenario on a Kubernetes context runs with the sandbox stopped: its figures count too.
  const sandboxRunning = useRunStore((s) => s.running)
  const scenarioRunning = useScenarioStore((s) => s.running)
  const running = sandboxRunning || scenarioRunning
  const routed = useLiveStore((s) => isClient && s.choices[nodeId] !== undefined)
  // A replay shows the recorded state at its playhead instead of the sandbox's.
  const replayed = useReplayStore((s) => (s.active ? (s.nodeStates[nodeId] ?? 'up') : undefined))
  const state = replayed ?? effectiveNodeState(reported, isClient, running, routed)
  // Live figures only near enough to read them, and never during a replay (they are not recorded).
  const showFigures = useCanvasLod((s) => !s.far) && running && !replayed
  const progress = useRunStore((s) => s.progress[nodeId])
  const address = useRunStore((s) => s.nodes[nodeId]?.address)
  const detail = useRunStore((s) => s.nodes[nodeId]?.detail)
  const readyInMs = useRunStore((s) => s.nodes[nodeId]?.readyInMs)
  // A replay has no live readiness to show; its badges come from the ledger.
  const readiness = replayed
    ? undefined
    : readinessNote(state, {
        ...(detail !== undefined ? { detail } : {}),
        ...(readyInMs !== undefined ? { readyInMs } : {})
      })
  // A consumer owning queues it cannot lock or pull from: a stall, live or as the replay stands at t.
  const liveStall = useStallStore((s) => (replayed ? undefined : s.stalls[nodeId]))
  const replayStall = useReplayStore((s) => (s.active ? s.stalls[nodeId] : undefined))
  const stalled = replayed ? replayStall : liveStall
  const ref = useRef<HTMLDivElement>(null)
  const label = nodeAriaLabel(data, state, stalled?.length ?? 0)
  useLayoutEffect(() => {
    // React Flow renders the focusable wrapper; its label carries the live state.
    ref.current?.closest('.react-flow__node')?.setAttribute('aria-label', label)
  }, [label])

  const onActions = useCallback(
    (e: MouseEvent<HTMLButtonElement>) => {
      e.stopPropagation()
      openMenuAt(nodeId, e.currentTarget, e.currentTarget)
    },
    [nodeId]
  )
  // Shift+F10 / the context-menu key open the same menu from the focused node.
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
        e.preventDefault()
        const wrapper = e.currentTarget.closest<HTMLElement>('.react-flow__node')
        openMenuAt(nodeId, e.currentTarget, wrapper)
      }
    },
    [nodeId]
  )

  return (
    <div
      ref={ref}
      className={`cnode cnode-${kind} state-${state}${selected ? ' is-selected' : ''}${problems ? ' has-problems' : ''}`}
      onKeyDown={onKeyDown}
    >
      {isClient ? (
        <Handle
          type="source"
          position={Position.Top}
          isConnectable={false}
          className="cnode-handle"
        />
      ) : (
        <Handle
          type="target"
          position={Position.Bottom}
          isConnectable={false}
          className="cnode-handle"
        />
      )}
      <div className="cnode-icon">
        <KindIcon kind={kind} size={18} />
      </div>
      <div className="cnode-body">
        <div className="cnode-title">
          <span className="cnode-id">{nodeId}</span>
          {attached && <Link2 size={12} aria-label="attached to an external endpoint" />}
          {problems > 0 && (
            <span
              className="cnode-problems"
              title={`${problems} problem${problems > 1 ? 's' : ''}`}
            >
              <AlertTriangle size={12} aria-hidden="true" />
              {problems}
            </span>
          )}
        </div>
        {showFigures && isClient && state !== 'starting' ? (
          <ClientFiguresLine nodeId={nodeId} fallback={subtitle} />
        ) : (
          <div className="cnode-sub" title={readiness?.text ?? progress ?? address ?? subtitle}>
            {detailLine(kind, state, subtitle, progress, address, readiness)}
            {showFigures && kind === 'broker' && <BrokerTps nodeId={nodeId} />}
          </div>
        )}
      </div>
      {!HIDDEN_STATES.has(state) && <span className={`badge badge-${state}`}>{state}</span>}
      {stalled && (
        <span className="badge badge-stalled" title={describeStalls(stalled)}>
          stalled {stalled.length}
        </span>
      )}
      {readiness && !readiness.replaces && (
        // Beside the state badge: the second line is the design and the broker's figures.
        <span className="badge-note" title={detail}>
          {readiness.text}
        </span>
      )}
      {!isClient && kind !== 'management' && kind !== 'proxy' && (
        <ControllerBadge nodeId={nodeId} />
      )}
      <button
        type="button"
        className="cnode-actions nodrag"
        aria-label={`Actions for ${nodeId}`}
        aria-haspopup="menu"
        title="Actions (Shift+F10)"
        onClick={onActions}
      >
        <EllipsisVertical size={14} aria-hidden="true" />
      </button>
    </div>
  )
}

export const ComponentNode = memo(ComponentNodeView)
