import { MANAGED_BY } from '../kubernetes/names'
import type { ChaosSpec, SelectorContext } from './chaos-objects'
import { chaosSpec, goDuration, windowLabel } from './chaos-objects'
import type { ChaosWindow, TimelinePlan } from './timeline-windows'

/** How long a pod-kill object lives: the kill happens on injection; this only bounds the step. */
export const POD_KILL_DEADLINE_MS = 5000

/** A recurring game day by default: Wednesdays 10:00 (the controller's time zone). */
export const DEFAULT_GAME_DAY = '0 10 * * 3'

export type WorkflowTemplate =
  | { name: string; templateType: 'Parallel' | 'Serial'; children: string[] }
  | { name: string; templateType: 'Suspend'; deadline: string }
  | ({ name: string; deadline: string } & ChaosSpec)

export interface WorkflowSpec {
  entry: string
  templates: WorkflowTemplate[]
}

interface ObjectMeta {
  name: string
  namespace: string
  labels: Record<string, string>
}

export interface WorkflowObject {
  apiVersion: 'chaos-mesh.org/v1alpha1'
  kind: 'Workflow'
  metadata: ObjectMeta
  spec: WorkflowSpec
}

export interface ScheduleObject {
  apiVersion: 'chaos-mesh.org/v1alpha1'
  kind: 'Schedule'
  metadata: ObjectMeta
  spec: {
    schedule: string
    type: 'Workflow'
    historyLimit: number
    concurrencyPolicy: 'Forbid'
    workflow: WorkflowSpec
  }
}

function deadlineOf(w: ChaosWindow): number {
  return w.kind === 'pod-kill' ? POD_KILL_DEADLINE_MS : w.endMs - w.startMs
}

/**
 * The Workflow's steps: one branch per window, each a Serial of a Suspend (the time until the
 * fault) and the chaos with the window's length as deadline, all branches in Parallel (one Serial
 * cannot overlap faults), plus a Suspend as long as the scenario so the Workflow spans the run.
 */
export function workflowSpec(ctx: SelectorContext, plan: TimelinePlan): WorkflowSpec {
  const templates: WorkflowTemplate[] = []
  const branches: string[] = ['scenario-length']
  templates.push({
    name: 'scenario-length',
    templateType: 'Suspend',
    deadline: goDuration(plan.endMs)
  })
  plan.windows.forEach((w, i) => {
    const base = `f${i + 1}-${windowLabel(w)}`.slice(0, 50).replace(/-+$/, '')
    const chaos = { name: base, deadline: goDuration(deadlineOf(w)), ...chaosSpec(ctx, w) }
    if (w.startMs === 0) {
      templates.push(chaos)
      branches.push(base)
      return
    }
    templates.push(
      { name: `${base}-run`, templateType: 'Serial', children: [`${base}-wait`, base] },
      { name: `${base}-wait`, templateType: 'Suspend', deadline: goDuration(w.startMs) },
      chaos
    )
    branches.push(`${base}-run`)
  })
  return {
    entry: 'timeline',
    templates: [{ name: 'timeline', templateType: 'Parallel', children: branches }, ...templates]
  }
}

function metadata(name: string, namespace: string, scenario: string): ObjectMeta {
  return { name, namespace, labels: { ...MANAGED_BY, 'drstudio.io/scenario': scenario } }
}

export function workflowObject(
  name: string,
  namespace: string,
  spec: WorkflowSpec
): WorkflowObject {
  return {
    apiVersion: 'chaos-mesh.org/v1alpha1',
    kind: 'Workflow',
    metadata: metadata(name, namespace, name),
    spec
  }
}

/** The same Workflow run on a cron schedule, one run at a time. */
export function scheduleObject(
  name: string,
  namespace: string,
  spec: WorkflowSpec,
  cron: string
): ScheduleObject {
  return {
    apiVersion: 'chaos-mesh.org/v1alpha1',
    kind: 'Schedule',
    metadata: metadata(`${name}-game-day`, namespace, name),
    spec: {
      schedule: cron,
      type: 'Workflow',
      historyLimit: 5,
      concurrencyPolicy: 'Forbid',
      workflow: spec
    }
  }
}
