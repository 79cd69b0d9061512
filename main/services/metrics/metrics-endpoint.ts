import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { defaultDataDir } from '../ledger/data-dir'
import { MetricsServer, parseMetricsAddress } from './metrics-server'
import { RunMetrics } from './run-metrics'

/** A command's metrics endpoint: the metrics its runs feed, and how to stop serving them. */
export interface MetricsEndpoint {
  metrics: RunMetrics
  url: string
  tokenFile: string
  close(): Promise<void>
}

/**
 * `--metrics 127.0.0.1:PORT` (CLI) or DRSTUDIO_METRICS (the app): serves the runs' Prometheus
 * metrics there while the command or the app lasts.
 * The per-launch bearer token goes to `<data folder>/metrics-<port>.token` (owner-only), which a
 * Prometheus scrape config names as its credentials_file; the file is removed when the command
 * or the app ends.
 */
export async function serveMetrics(
  address: string,
  dataDir: string | undefined,
  err: { write(text: string): unknown }
): Promise<MetricsEndpoint> {
  const where = parseMetricsAddress(address)
  const metrics = new RunMetrics()
  const server = await MetricsServer.start(where, metrics)
  const dir = dataDir ?? defaultDataDir()
  mkdirSync(dir, { recursive: true })
  // One file per port: an app and a CLI on the same data folder each keep their own.
  const tokenFile = join(dir, `metrics-${new URL(server.url).port}.token`)
  rmSync(tokenFile, { force: true })
  writeFileSync(tokenFile, server.token, { mode: 0o600, flag: 'wx' })
  const removeToken = (): void => rmSync(tokenFile, { force: true })
  process.once('exit', removeToken)
  err.write(`metrics: ${server.url} (bearer token in ${tokenFile})\n`)
  return {
    metrics,
    url: server.url,
    tokenFile,
    close: async () => {
      await server.close()
      process.off('exit', removeToken)
      removeToken()
    }
  }
}
