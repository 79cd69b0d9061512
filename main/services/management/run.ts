import { loadManagementConfig } from './config'
import { ManagementNode, type ManagementNodeOptions } from './management-node'

/** Ports of runManagementNode, so the CLI and tests can capture output and signals. */
export interface RunManagementOptions {
  log?: (line: string) => void
  /** Process to attach SIGINT/SIGTERM handlers to; `false` installs none. */
  signals?: NodeJS.Process | false
  /** Extra node options (clock, client factory) for tests. */
  overrides?: Partial<Pick<ManagementNodeOptions, 'clock' | 'clientFactory' | 'proxyProbe'>>
}

/** A started standalone node; `stopped` settles once a signal (or stop()) shut it down. */
export interface RunningManagementNode {
  node: ManagementNode
  url: string
  stopped: Promise<void>
  stop(): Promise<void>
}

/**
 * `drstudio mgmt --config <file>`: loads the file (errors name it and the JSON path), starts the
 * node, prints its URL and stops cleanly on SIGINT/SIGTERM.
 */
export async function runManagementNode(
  configPath: string,
  options: RunManagementOptions = {}
): Promise<RunningManagementNode> {
  const log = options.log ?? ((line: string) => console.log(line))
  const config = await loadManagementConfig(configPath)
  const node = new ManagementNode({ ...config, ...options.overrides })
  node.on('change', (ns) =>
    log(
      `${ns.available ? 'listed' : 'dropped'} name server ${ns.id} (${ns.room}, ${ns.address})` +
        (ns.lastError ? `: ${ns.lastError}` : '')
    )
  )
  node.on('proxy-change', (p) =>
    log(
      `proxy ${p.id} (${p.room}, ${p.address}) ${p.available ? 'available' : 'unavailable'}` +
        (p.lastError ? `: ${p.lastError}` : '')
    )
  )
  const { url } = await node.start()
  log(`management node ${config.id} (room ${config.room}) listening on ${url}`)
  log(`address server: ${url}/rocketmq/nsaddr -> ${node.nsaddr() || '(none available)'}`)

  let resolveStopped: () => void = () => {}
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve))
  const proc = options.signals === undefined ? process : options.signals
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (proc) {
        proc.off('SIGINT', onSignal)
        proc.off('SIGTERM', onSignal)
      }
      await node.stop()
      resolveStopped()
    })()
    return stopping
  }
  const onSignal = (signal: NodeJS.Signals): void => {
    log(`management node ${config.id}: ${signal}, stopping`)
    void stop()
  }
  if (proc) {
    proc.on('SIGINT', onSignal)
    proc.on('SIGTERM', onSignal)
  }
  return { node, url, stopped, stop }
}
