import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
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
 * The per-launch bearer token goes to `<data folder>/metrics.token` (owner-only), which a
 * Prometheus scrape config names as its credentials_file; the file is removed at the end.
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
  const tokenFile = join(dir, 'metrics.token')
  writeFileSync(tokenFile, server.token, { mode: 0o600 })
  chmodSync(tokenFile, 0o600)
  err.write(`metrics: ${server.url} (bearer token in ${tokenFile})\n`)
  return {
    metrics,
    url: server.url,
    tokenFile,
    close: async () => {
      await server.close()
      rmSync(tokenFile, { force: true })
    }
  }
}
