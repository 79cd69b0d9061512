import type { ActiveFault, LastingFault } from './faults'
import { resolveFault } from './faults'
import type { NetworkPlan } from './plan'
import { planNetwork } from './plan'
import { networkFaultSchema } from '../../../common/scenario/schema'
import type { NetworkFaultInput } from '../../../common/scenario/schema'

/** room1 {a1, a2}, room2 {b1}, room3 {c1} in instance 0: the unit tests' shared lab. */
export function testPlan(network?: Parameters<typeof planNetwork>[0]['network']): NetworkPlan {
  return planNetwork({
    instance: 0,
    rooms: ['room1', 'room2', 'room3'],
    nodes: [
      { id: 'a1', room: 'room1' },
      { id: 'a2', room: 'room1' },
      { id: 'b1', room: 'room2' },
      { id: 'c1', room: 'room3' }
    ],
    network
  })
}

/** Parses and resolves faults the way the lab does, numbering them f1, f2, ... */
export function activeFaults(plan: NetworkPlan, inputs: NetworkFaultInput[]): ActiveFault[] {
  return inputs.map((input, i) => {
    const fault = networkFaultSchema.parse(input) as LastingFault
    const r = resolveFault(plan, fault)
    if (!r.ok) throw new Error(r.error)
    return { id: `f${i + 1}`, fault, scope: r.scope, appliedAt: i }
  })
}
