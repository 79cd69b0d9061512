import type { Topology } from '../../../common/topology/schema'
import { systemClock } from '../../../main/services/clients/room-aware/ports'
import { createTopologyTopics } from '../../../main/services/engine/run/setup'
import { RemotingRpc } from '../../../main/services/remoting/remoting-rpc'
import type { Sandbox } from '../../../main/services/sandbox/sandbox'

/**
 * The topology's own topics on a booted sandbox, as `drstudio sandbox up` creates them: for tests
 * that drive clients themselves rather than through a run (which creates its own topics).
 */
export async function createTopologyTopicsOn(sandbox: Sandbox, topology: Topology): Promise<void> {
  const admin = new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 })
  try {
    await createTopologyTopics({
      topology,
      cluster: sandbox,
      admin,
      clock: systemClock,
      signal: new AbortController().signal,
      readyTimeoutMs: 90_000
    })
  } finally {
    admin.close()
  }
}
