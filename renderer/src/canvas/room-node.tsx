import type { NodeProps } from '@xyflow/react'
import { AlertTriangle, Building2, GripVertical, Network } from 'lucide-react'
import type { MouseEvent } from 'react'
import { memo, useCallback } from 'react'
import type { RoomFlowNode } from '../model/flow-model'
import { useNetworkStore } from '../stores/network-store'

/** Opens a room's network menu under `el` (its header button, or the focused room). */
export function openRoomMenuAt(roomId: string, el: Element, returnFocus: HTMLElement | null) {
  const r = el.getBoundingClientRect()
  useNetworkStore.getState().openMenu({
    subject: { kind: 'room', room: roomId },
    x: r.left,
    y: r.bottom + 4,
    returnFocus
  })
}

/** A machine room: a parent node whose header is the drag handle, with its network menu button. */
function RoomNodeView({ data, selected }: NodeProps<RoomFlowNode>) {
  const { roomId } = data
  const onNetwork = useCallback(
    (e: MouseEvent<HTMLButtonElement>) => {
      e.stopPropagation()
      openRoomMenuAt(roomId, e.currentTarget, e.currentTarget)
    },
    [roomId]
  )
  return (
    <div className={`room${selected ? ' is-selected' : ''}${data.problems ? ' has-problems' : ''}`}>
      <div className="room-header room-drag">
        <GripVertical size={14} aria-hidden="true" className="room-grip" />
        <Building2 size={15} aria-hidden="true" />
        <span className="room-name">{data.name}</span>
        {data.name !== roomId && <span className="room-id">{roomId}</span>}
        <span className="room-count">{data.members} nodes</span>
        {data.problems > 0 && (
          <span className="room-problems" title={`${data.problems} problem(s)`}>
            <AlertTriangle size={12} aria-hidden="true" />
            {data.problems}
          </span>
        )}
        <button
          type="button"
          className="room-actions nodrag nopan"
          aria-label={`Network actions for ${roomId}`}
          aria-haspopup="menu"
          title="Network actions (right click, Shift+F10)"
          onClick={onNetwork}
        >
          <Network size={13} aria-hidden="true" />
        </button>
      </div>
    </div>
  )
}

export const RoomNode = memo(RoomNodeView)
