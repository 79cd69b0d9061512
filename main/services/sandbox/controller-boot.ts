import type { ControllerEndpoint, ControllerProbe } from './controller-readiness'
import { waitForControllerLeader, waitForMasters } from './controller-readiness'
import { quorumOf } from './node-commands'
import type { NodeProcess } from './node-process'
import type { Clock } from './readiness'

/** The controller quorum of a sandbox's nodes, with the address brokers reach each on. */
export function controllerEndpoints(nodes: readonly NodeProcess[]): ControllerEndpoint[] {
  const byId = new Map(nodes.map((n) => [n.id, n]))
  return quorumOf(nodes).map((p) => ({
    nodeId: p.nodeId,
    room: byId.get(p.nodeId)!.room,
    address: `${p.host}:${p.port}`,
    selfId: p.selfId,
    embedded: byId.get(p.nodeId)!.kind === 'nameserver'
  }))
}

export interface ControllerBootInput {
  nodes: readonly NodeProcess[]
  probe: () => ControllerProbe
  clock: Clock
  timeoutMs: number
  signal: AbortSignal
  progress: (nodeId: string, message: string) => void
}

/** Readiness of the quorum: a leader is elected before brokers look for one. */
export async function awaitControllerLeader(input: ControllerBootInput): Promise<void> {
  const controllers = controllerEndpoints(input.nodes)
  if (controllers.length === 0) return
  input.progress('', `waiting for the ${controllers.length} controllers to elect a leader`)
  const leader = await waitForControllerLeader({ ...input, probe: input.probe(), controllers })
  input.progress(leader.nodeId, `controller leader elected (${leader.selfId}, ${leader.address})`)
}

/** Readiness of controller mode: every group of replicas (this sandbox runs) has a master. */
export async function awaitGroupMasters(input: ControllerBootInput): Promise<void> {
  const groups = [
    ...new Set(
      input.nodes.flatMap((rt) =>
        rt.node.kind === 'broker' && rt.node.spec.role === 'replica' && !rt.attached
          ? [rt.node.spec.brokerName]
          : []
      )
    )
  ]
  if (groups.length === 0) return
  input.progress('', `waiting for the controllers to elect a master in ${groups.join(', ')}`)
  const info = await waitForMasters({
    ...input,
    probe: input.probe(),
    controllers: controllerEndpoints(input.nodes),
    groups
  })
  for (const g of groups) {
    const address = info[g]!.masterAddress
    const master = input.nodes.find((rt) => `${rt.host}:${rt.port}` === address)
    input.progress(master?.id ?? '', `master of ${g}: ${address} (epoch ${info[g]!.masterEpoch})`)
  }
}
