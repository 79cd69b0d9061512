import type { ChaosSpec, NetworkChaosSpec, PodChaosSpec, PodSelectorSpec } from './chaos-objects'
import type { ScheduleObject, WorkflowObject, WorkflowSpec, WorkflowTemplate } from './workflow'

// Rules Chaos Mesh 2.8 enforces in its admission webhook, not in the CRD schema, so the vendored
// schemas cannot catch them (api/v1alpha1: common_webhook.go, networkchaos_webhook.go,
// podchaos_webhook.go, workflow_webhook.go, schedule_webhook.go). Re-checked here, each problem
// naming the field.

/** Go's time.ParseDuration: one or more number+unit pairs. */
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const RATE = /^\s*\d+\s*(kbit|mbit|gbit|tbit|tbps|gbps|mbps|kbps|bps|bit)\s*$/i
const CRON_FIELD = /^[0-9A-Za-z*?/,\-LW#]+$/
const CRON_DESCRIPTOR = /^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/

/** Whether Chaos Mesh's Schedule would parse the cron text (5 fields, a descriptor or @every). */
export function cronProblem(cron: string): string | null {
  const text = cron.trim()
  if (CRON_DESCRIPTOR.test(text)) return null
  const every = /^@every\s+(\S+)$/.exec(text)
  if (every) return GO_DURATION.test(every[1]!) ? null : `"${every[1]}" is not a Go duration`
  const fields = text.split(/\s+/)
  if (fields.length !== 5 || !fields.every((f) => CRON_FIELD.test(f))) {
    return `"${cron}" is not a 5-field cron schedule (minute hour day-of-month month day-of-week), e.g. "0 10 * * 3"`
  }
  return null
}

function selectorProblems(path: string, s: PodSelectorSpec | undefined): string[] {
  const empty =
    !s ||
    (Object.keys(s.labelSelectors ?? {}).length === 0 && !(s.expressionSelectors ?? []).length)
  // An empty selector selects every pod of the namespaces: never what a fault means.
  return empty ? [`${path}: the selector is empty and would select every pod; select by label`] : []
}

function networkProblems(path: string, n: NetworkChaosSpec & { duration?: unknown }): string[] {
  const out = selectorProblems(`${path}.selector`, n.selector)
  if (n.target) out.push(...selectorProblems(`${path}.target.selector`, n.target.selector))
  if (n.direction !== 'to' && !n.target) {
    out.push(
      `${path}.direction: "${n.direction}" needs a target (the webhook refuses it without one)`
    )
  }
  if (n.delay && !GO_DURATION.test(n.delay.latency))
    out.push(`${path}.delay.latency: "${n.delay.latency}" is not a Go duration`)
  if (n.delay?.jitter !== undefined && !GO_DURATION.test(n.delay.jitter)) {
    out.push(`${path}.delay.jitter: "${n.delay.jitter}" is not a Go duration`)
  }
  if (n.loss) {
    const pct = Number(n.loss.loss)
    if (!Number.isFinite(pct) || pct < 0 || pct > 100)
      out.push(`${path}.loss.loss: "${n.loss.loss}" is not a percentage`)
  }
  if (n.bandwidth && !RATE.test(n.bandwidth.rate)) {
    out.push(
      `${path}.bandwidth.rate: "${n.bandwidth.rate}" must be an integer and a unit (kbit, mbit, ...)`
    )
  }
  if (n.duration !== undefined)
    out.push(`${path}.duration: inside a Workflow use the template's deadline`)
  return out
}

function podProblems(path: string, p: PodChaosSpec & { duration?: unknown }): string[] {
  const out = selectorProblems(`${path}.selector`, p.selector)
  if (p.action === 'container-kill' && !(p.containerNames ?? []).length) {
    out.push(`${path}.containerNames: container-kill needs the container names`)
  }
  if (p.duration !== undefined)
    out.push(`${path}.duration: inside a Workflow use the template's deadline`)
  return out
}

function templateProblems(path: string, t: WorkflowTemplate, names: ReadonlySet<string>): string[] {
  const out: string[] = []
  if (!DNS1123_SUBDOMAIN.test(t.name))
    out.push(`${path}.name: "${t.name}" is not a DNS-1123 subdomain`)
  if ('deadline' in t && !GO_DURATION.test(t.deadline))
    out.push(`${path}.deadline: "${t.deadline}" is not a Go duration`)
  switch (t.templateType) {
    case 'Suspend':
      if (!t.deadline) out.push(`${path}.deadline: a Suspend needs a deadline`)
      break
    case 'Serial':
    case 'Parallel':
      for (const c of t.children)
        if (!names.has(c)) out.push(`${path}.children: no template named "${c}"`)
      break
    case 'NetworkChaos':
      out.push(
        ...(t.networkChaos
          ? networkProblems(`${path}.networkChaos`, t.networkChaos)
          : [`${path}: networkChaos is missing`])
      )
      break
    case 'PodChaos':
      out.push(
        ...(t.podChaos
          ? podProblems(`${path}.podChaos`, t.podChaos)
          : [`${path}: podChaos is missing`])
      )
      break
  }
  return out
}

/** Problems of one chaos on its own (a live run's object rather than a Workflow template). */
export function chaosSpecProblems(spec: ChaosSpec): string[] {
  return spec.templateType === 'NetworkChaos'
    ? networkProblems('spec', spec.networkChaos)
    : podProblems('spec', spec.podChaos)
}

/** Problems of a Workflow spec (also a Schedule's), paths from `base`. */
export function workflowSpecProblems(base: string, spec: WorkflowSpec): string[] {
  const names = spec.templates.map((t) => t.name)
  const out: string[] = []
  if (!spec.templates.length) out.push(`${base}.templates: a Workflow needs templates`)
  if (!names.includes(spec.entry)) out.push(`${base}.entry: no template named "${spec.entry}"`)
  const dup = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))]
  if (dup.length) out.push(`${base}.templates: names must be unique (${dup.join(', ')})`)
  const set = new Set(names)
  spec.templates.forEach((t, i) => out.push(...templateProblems(`${base}.templates[${i}]`, t, set)))
  return out
}

/** Every webhook-only rule a Workflow or Schedule of the export could break; [] when none. */
export function webhookProblems(o: WorkflowObject | ScheduleObject): string[] {
  const out: string[] = []
  if (!DNS1123_SUBDOMAIN.test(o.metadata.name) || o.metadata.name.length > 253) {
    out.push(`metadata.name: "${o.metadata.name}" is not a DNS-1123 subdomain`)
  }
  if (o.kind === 'Workflow') return [...out, ...workflowSpecProblems('spec', o.spec)]
  const cron = cronProblem(o.spec.schedule)
  if (cron) out.push(`spec.schedule: ${cron}`)
  return [...out, ...workflowSpecProblems('spec.workflow', o.spec.workflow)]
}
