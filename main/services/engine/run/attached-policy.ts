import { isAttached, listNodes } from '../../../../common/topology/model'
import type { Topology } from '../../../../common/topology/schema'
import { runConsumerGroup } from '../../attach/workload-safety'
import type { RunNames, TopicPolicy } from './run-context'

/** True when the topology's brokers are an operator's (attached), not the sandbox's. */
export function isAttachedCluster(topology: Topology): boolean {
  return listNodes(topology).some((n) => n.kind === 'broker' && isAttached(n))
}

/**
 * How a run names its topics and groups, and what it may do to them. On DR Studio's own sandbox a
 * scenario run makes a fresh topic and group per run (`orders-r12`), a session uses the topology's.
 * On an attached cluster every run uses the existing topic the topology names and a group of its
 * own (`drstudio-run-12`), so production groups' offsets never move, and it creates nothing unless
 * the user asked (`--create-topic`, or the box in Connect to cluster…).
 */
export function runNaming(input: {
  topology: Topology
  runId: number
  kind: 'scenario' | 'session'
  createTopic?: boolean
}): { names: RunNames; topicPolicy: TopicPolicy } {
  const { topology, runId } = input
  if (isAttachedCluster(topology)) {
    const create = input.createTopic ?? topology.source?.createTopic ?? false
    return {
      names: { topicOf: (t) => t, groupOf: () => runConsumerGroup(runId) },
      topicPolicy: create ? 'create' : 'require-existing'
    }
  }
  if (input.kind === 'session') {
    return { names: { topicOf: (t) => t, groupOf: (g) => g }, topicPolicy: 'create' }
  }
  const suffix = (base: string): string => `${base}-r${runId}`
  return { names: { topicOf: suffix, groupOf: suffix }, topicPolicy: 'create' }
}
