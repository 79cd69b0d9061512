import type { Scenario } from '../../../../common/scenario/schema'
import type { Topology } from '../../../../common/topology/schema'
import { k8sName, namespaceOf } from '../kubernetes/names'
import { yamlDocuments } from '../kubernetes/render-kubernetes'
import { chaosReadme } from './chaos-readme'
import { ChaosExportError, planTimeline } from './timeline-windows'
import { webhookProblems } from './webhook-rules'
import { DEFAULT_GAME_DAY, scheduleObject, workflowObject, workflowSpec } from './workflow'

export interface ChaosMeshOptions {
  /** Cron text of the recurring game day (Schedule); default Wednesdays 10:00. */
  schedule?: string
}

/**
 * `--target chaos-mesh` for a scenario: its timeline as a Chaos Mesh Workflow (workflow.yaml), the
 * same Workflow on a cron Schedule (schedule.yaml) and a README of what maps to what and what
 * Chaos Mesh cannot express. Objects select pods by the labels of `--target kubernetes`. Pure;
 * throws ChaosExportError when a step names nothing or an object would break a webhook rule.
 */
export function renderChaosMesh(
  scenario: Scenario,
  topology: Topology,
  opts: ChaosMeshOptions = {}
): Map<string, string> {
  const namespace = namespaceOf(topology)
  const ctx = { namespace, rooms: new Set(topology.rooms.map((r) => r.id)) }
  const plan = planTimeline(scenario, topology)
  const name = k8sName(scenario.name) || 'scenario'
  const spec = workflowSpec(ctx, plan)
  const workflow = workflowObject(name, namespace, spec)
  const cron = opts.schedule ?? DEFAULT_GAME_DAY
  const schedule = scheduleObject(name, namespace, spec, cron)
  const problems = [...webhookProblems(workflow), ...webhookProblems(schedule)]
  if (problems.length) {
    throw new ChaosExportError(
      `scenario ${scenario.name}: Chaos Mesh would refuse the export:\n${problems.map((p) => `  - ${p}`).join('\n')}`
    )
  }
  return new Map([
    ['README.md', chaosReadme({ scenario, topology, plan, namespace, workflow, schedule })],
    ['schedule.yaml', yamlDocuments([schedule])],
    ['workflow.yaml', yamlDocuments([workflow])]
  ])
}
