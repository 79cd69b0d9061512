import { defaultDelayRouterPath } from '../network/delay-router'
import { nodeExec } from '../network/exec'
import { NetworkLab } from '../network/lab'
import type { NetworkSupport } from '../network/support'
import { detectNetworkSupport } from '../network/support'
import { workerIdsFor } from '../workers/client-fleet'
import type { SandboxOptions } from './sandbox'
import type { SandboxNetworkDeps } from './sandbox-network'

/** This machine's network lab, with support detected once per process. */
export function machineNetwork(appRoot: string): SandboxNetworkDeps {
  const delayRouter = defaultDelayRouterPath(appRoot)
  const lab = new NetworkLab({ delayRouter })
  let support: Promise<NetworkSupport> | undefined
  return {
    lab,
    support: () => (support ??= detectNetworkSupport(nodeExec, { delayRouter }))
  }
}

/**
 * What every shell's sandbox adds to its options: rooms as networks where the OS allows (the
 * topology's `network.mode` decides), and a place in each room's network for its client workers.
 */
export function machineSandboxOptions(
  appRoot: string
): Pick<SandboxOptions, 'network' | 'workerIds'> {
  return { network: machineNetwork(appRoot), workerIds: workerIdsFor }
}
