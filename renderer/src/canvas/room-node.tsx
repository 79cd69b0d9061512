import type { NodeProps } from '@xyflow/react'
import { AlertTriangle, Building2, GripVertical } from 'lucide-react'
import { memo } from 'react'
import type { RoomFlowNode } from '../model/flow-model'

/** A machine room: a parent node whose header is the drag handle. */
function RoomNodeView({ data, selected }: NodeProps<RoomFlowNode>) {
  return (
    <div className={`room${selected ? ' is-selected' : ''}${data.problems ? ' has-problems' : ''}`}>
      <div className="room-header room-drag">
        <GripVertical size={14} aria-hidden="true" className="room-grip" />
        <Building2 size={15} aria-hidden="true" />
        <span className="room-name">{data.name}</span>
        {data.name !== data.roomId && <span className="room-id">{data.roomId}</span>}
        <span className="room-count">{data.members} nodes</span>
        {data.problems > 0 && (
          <span className="room-problems" title={`${data.problems} problem(s)`}>
            <AlertTriangle size={12} aria-hidden="true" />
            {data.problems}
          </span>
        )}
      </div>
    </div>
  )
}

export const RoomNode = memo(RoomNodeView)
