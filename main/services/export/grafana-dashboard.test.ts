import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import threeRoomsJson from '../../../resources/topologies/three-rooms.json'
import { topologySchema } from '../../../common/topology/schema'
import { RunMetrics } from '../metrics/run-metrics'
import { promtoolCommand } from '../metrics/test-promtool'
import { exportTopology } from './export'
import { dashboardExpressions, grafanaDashboard } from './grafana-dashboard'
import { GRAFANA_DASHBOARD_FILE, MANIFEST_FILE } from './render'

const topology = topologySchema.parse(structuredClone(threeRoomsJson))
const dir = mkdtempSync(join(tmpdir(), 'drstudio-grafana-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** `promtool check rules` on the expressions as recording rules: PromQL that parses, or why not. */
function checkPromQL(exprs: readonly string[]): { ok: boolean; output: string } {
  const file = join(dir, `rules-${Math.random().toString(36).slice(2)}.yml`)
  const rules = exprs.map(
    (e, i) =>
      `      - record: drstudio:panel_${i}\n        expr: ${JSON.stringify(e.replaceAll('$__rate_interval', '1m'))}`
  )
  writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`)
  const r = spawnSync(promtoolCommand(), ['check', 'rules', file], { encoding: 'utf8' })
  if (r.error) throw new Error(`promtool is missing (${r.error.message}); run npm run setup`)
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` }
}

describe('grafanaDashboard', () => {
  const json = grafanaDashboard(topology)
  const d = JSON.parse(json) as {
    panels: { type: string; title: string; id: number }[]
    annotations: { list: { name: string; expr: string }[] }
  }

  it('has the run on top, then a row per room, and faults as annotations', () => {
    expect(d.panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'Run',
      ...topology.rooms.map((r) => `Room ${r.name ?? r.id}`)
    ])
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length)
    const uid = (JSON.parse(json) as { uid: string }).uid
    expect(uid.length).toBeLessThanOrEqual(40)
    // Long names that share a start still get uids of their own.
    const long = (name: string) =>
      (JSON.parse(grafanaDashboard({ ...topology, name })) as { uid: string }).uid
    expect(long('a-very-long-topology-name-for-staging')).not.toBe(
      long('a-very-long-topology-name-for-production')
    )
    expect(d.annotations.list).toEqual([
      expect.objectContaining({ name: 'Faults', expr: 'drstudio_fault_active == 1' })
    ])
  })

  it('queries only metrics a run serves, in PromQL promtool accepts', async () => {
    const served = new Set(
      (await new RunMetrics().registry.getMetricsAsJSON()).flatMap((m) =>
        String(m.type) === 'histogram'
          ? [`${m.name}_bucket`, `${m.name}_count`, `${m.name}_sum`]
          : [m.name]
      )
    )
    const exprs = dashboardExpressions(json)
    const used = new Set(exprs.flatMap((e) => e.match(/drstudio_[a-z_]+/g) ?? []))
    expect([...used].filter((n) => !served.has(n))).toEqual([])
    expect(used.size).toBeGreaterThanOrEqual(10)
    const check = checkPromQL(exprs)
    expect(check.ok, check.output).toBe(true)
    // The check can fail: a broken expression is refused.
    expect(checkPromQL(['sum by (client (rate(drstudio_sends_total[1m]))']).ok).toBe(false)
  })

  it('export --target grafana writes the dashboard alone', () => {
    const out = join(dir, 'grafana-only')
    const result = exportTopology(topology, { outDir: out, target: 'grafana' })
    expect(result.files).toEqual([GRAFANA_DASHBOARD_FILE, MANIFEST_FILE].sort())
    expect(readdirSync(out).sort()).toEqual([MANIFEST_FILE, 'grafana'].sort())
    expect(readFileSync(join(out, GRAFANA_DASHBOARD_FILE), 'utf8')).toBe(json)
  })
})
