import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Sandbox } from '../../main/services/sandbox/sandbox'
import { machineSandboxOptions } from '../../main/services/sandbox/machine-sandbox'
import { loadScenarioFile } from '../../main/services/scenario/load-scenario'
import { sandboxPlace, sourceWorkers } from '../../main/services/workers/worker-launcher'
import { measurePaths } from '../lanes/paths'

const ROOT = resolve(import.meta.dirname, '../..')
const t = performance.now()
const log = (m: string): void => void process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1).padStart(6)}s ${m}\n`)
const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-probe-'))
const sandbox = new Sandbox({ dataDir, repoRoot: ROOT, ...machineSandboxOptions(ROOT) })
try {
  await sandbox.start(loadScenarioFile(join(ROOT, 'resources/scenarios/grpc-healthy.yaml')).topology)
  log(`up; network ${JSON.stringify(sandbox.network?.() ?? null).slice(0, 200)}`)
  const res = await measurePaths({ sandbox, workers: sourceWorkers(sandboxPlace(sandbox, dataDir)), rounds: Number(process.env.ROUNDS ?? 3), rate: 200, roundMs: 5000, maxInflight: 16, log })
  for (const r of res) log(`${r.id}: pooled ${JSON.stringify(r.fixedPooled)} max ${JSON.stringify(r.max)}`)
} finally {
  await sandbox.stop().catch(() => undefined)
  if (!process.env.KEEP) rmSync(dataDir, { recursive: true, force: true })
}
