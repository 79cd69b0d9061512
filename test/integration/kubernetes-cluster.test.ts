import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runKubernetesUp } from '../../main/cli/kubernetes-commands'
import { KubeHttp } from '../../main/services/kubernetes/kube-http'
import { kubeconfigPath, resolveContext } from '../../main/services/kubernetes/kubeconfig'
import { runScenarioOnKubernetes } from '../../main/services/kubernetes/kube-scenario'
import { openDatabase, Recorder } from '../../main/services/ledger/recorder'
import { loadScenarioFile } from '../../main/services/scenario/load-scenario'
import { formatScorecard } from '../../main/services/scenario/scorecard'

// A real cluster, when one is named: DRSTUDIO_K8S_CONTEXT (a kubeconfig context whose nodes carry
// zone labels room1 and room2) and, for management nodes, DRSTUDIO_K8S_IMAGE (a DR Studio image the
// cluster can pull; docs/kubernetes.md). This machine has none, so here it skips.
const context = process.env.DRSTUDIO_K8S_CONTEXT
const reason = context
  ? ''
  : ' (skipped: DRSTUDIO_K8S_CONTEXT is not set; no Kubernetes cluster here)'
// A skipped file shows only a count in the summary: say why in the log too.
if (!context) console.info(`kubernetes-cluster.test.ts${reason}`)

describe.skipIf(!context)(`a real Kubernetes cluster${reason}`, () => {
  it(
    'kubernetes up brings two-rooms to ready and leaves nothing of its run behind',
    { timeout: 900_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'drstudio-k8s-'))
      try {
        const topology = JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))
        const image = process.env.DRSTUDIO_K8S_IMAGE
        topology.settings = {
          ...topology.settings,
          kubernetes: { ...(image ? { drstudioImage: image } : {}) }
        }
        const file = join(dir, 'two-rooms.json')
        writeFileSync(file, JSON.stringify(topology))
        const namespace = `drs-it-${Date.now().toString(36)}`
        const lines: string[] = []
        let stop!: () => void
        const stopped = new Promise<void>((r) => (stop = r))
        const done = runKubernetesUp(
          file,
          { context: context!, namespace },
          { write: (s) => lines.push(s) },
          { stopped, dispose: () => {} }
        )
        await expect
          .poll(() => lines.join(''), { timeout: 600_000, interval: 1000 })
          .toMatch(/every pod ready in|drstudio: /)
        stop()
        expect(await done, lines.join('')).toBe(0)
        const ctx = resolveContext(
          readFileSync(kubeconfigPath(), 'utf8'),
          kubeconfigPath(),
          context
        )
        const api = new KubeHttp(ctx.endpoint)
        // Everything the run made, its stores and its namespace included, is gone or going.
        const live = (o: { metadata: { deletionTimestamp?: string } }) =>
          !o.metadata.deletionTimestamp
        for (const kind of ['Pod', 'PersistentVolumeClaim', 'ConfigMap', 'Service']) {
          const left = await api.list(
            { apiVersion: 'v1', kind },
            namespace,
            'app.kubernetes.io/managed-by=drstudio'
          )
          expect(left.filter(live), kind).toEqual([])
        }
        const ns = await api.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
        expect(ns === null || !live(ns), 'namespace').toBe(true)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it(
    'scenario run --on kubernetes: room1-brokers-down passes its gates there and leaves nothing behind',
    { timeout: 1_200_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'drstudio-k8s-run-'))
      const recorder = new Recorder(openDatabase(join(dir, 'drstudio.db')))
      try {
        const loaded = loadScenarioFile('resources/scenarios/room1-brokers-down.yaml')
        const image = process.env.DRSTUDIO_K8S_IMAGE
        loaded.topology.settings = {
          ...loaded.topology.settings,
          kubernetes: { ...(image ? { drstudioImage: image } : {}) }
        }
        const namespace = `drs-it-${Date.now().toString(36)}`
        const lines: string[] = []
        const outcome = await runScenarioOnKubernetes(
          loaded,
          { context: context!, namespace, recorder, logRoot: dir },
          { write: (s) => lines.push(s) },
          { stopped: new Promise(() => {}), dispose: () => {} }
        )
        expect(outcome.kind, lines.join('')).toBe('ran')
        if (outcome.kind !== 'ran') return
        process.stderr.write(formatScorecard(outcome.report))
        expect(outcome.report.totals.lost).toBe(0)
        expect(outcome.report.passed).toBe(true)
        expect(lines.join('')).not.toMatch(/still on the cluster after teardown/)
      } finally {
        recorder.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})
