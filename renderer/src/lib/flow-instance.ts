import type { ReactFlowInstance } from '@xyflow/react'
import type { FlowNode, LiveFlowEdge } from '../model/flow-model'

type Instance = ReactFlowInstance<FlowNode, LiveFlowEdge>

let instance: Instance | null = null

/** Registered by the canvas on init, so non-React code (the benchmark) can drive the viewport. */
export function setFlowInstance(i: Instance | null): void {
  instance = i
}

export function getFlowInstance(): Instance | null {
  return instance
}
