import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { loadScenarioFile } from '../../scenario/load-scenario'
import { createManifestChecker } from '../manifest-schemas'
import { expectGoldenDir } from '../golden-dir'
import { renderChaosMesh } from './render-chaos-mesh'
import { cronProblem, webhookProblems } from './webhook-rules'
import type { ScheduleObject, WorkflowObject } from './workflow'

const SCENARIOS = readdirSync('resources/scenarios').filter((f) => f.endsWith('.yaml'))
const check = createManifestChecker()

function render(file: string, schedule?: string) {
  const { scenario, topology } = loadScenarioFile(`resources/scenarios/${file}`)
  return renderChaosMesh(scenario, topology, { schedule })
}

function objects(files: Map<string, string>): (WorkflowObject | ScheduleObject)[] {
  return ['workflow.yaml', 'schedule.yaml'].flatMap((f) =>
    parseAllDocuments(files.get(f)!).map((d) => d.toJS() as WorkflowObject | ScheduleObject)
  )
}

describe('renderChaosMesh', () => {
  it.each(SCENARIOS)(
    '%s: Workflow and Schedule pass the vendored 2.8.x schemas and the webhook rules',
    (file) => {
      for (const o of objects(render(file))) {
        expect(check(o), `${o.kind} schema`).toEqual([])
        expect(webhookProblems(o), `${o.kind} webhook rules`).toEqual([])
      }
    }
  )

  it('every embedded chaos also passes as a stand-alone NetworkChaos / PodChaos', () => {
    for (const file of SCENARIOS) {
      const [workflow] = objects(render(file)) as [WorkflowObject]
      for (const t of workflow.spec.templates) {
        if (t.templateType !== 'NetworkChaos' && t.templateType !== 'PodChaos') continue
        const spec = t.templateType === 'NetworkChaos' ? t.networkChaos : t.podChaos
        const doc = {
          apiVersion: 'chaos-mesh.org/v1alpha1',
          kind: t.templateType,
          metadata: { name: t.name },
          spec
        }
        expect(check(doc), `${file} ${t.name}`).toEqual([])
      }
    }
  })

  it('the schema check reaches into the Workflow and Schedule templates', () => {
    const [workflow, schedule] = objects(render('room1-lossy.yaml'))
    const broken = (o: WorkflowObject | ScheduleObject) =>
      JSON.parse(JSON.stringify(o).replace('"direction":"both"', '"direction":"sideways"'))
    expect(check(broken(workflow!)).join()).toMatch(/direction/)
    expect(check(broken(schedule!)).join()).toMatch(/direction/)
  })

  it('times each fault by a Suspend of its start and a deadline of its length', () => {
    const [workflow] = objects(render('room1-lossy.yaml')) as [WorkflowObject]
    const byName = new Map(workflow.spec.templates.map((t) => [t.name, t]))
    expect(byName.get('timeline')).toMatchObject({
      templateType: 'Parallel',
      children: ['scenario-length', 'f1-netem-room1-room2-run', 'f2-down-broker-1-run']
    })
    expect(byName.get('scenario-length')).toMatchObject({
      templateType: 'Suspend',
      deadline: '22s'
    })
    expect(byName.get('f1-netem-room1-room2-run')).toMatchObject({
      templateType: 'Serial',
      children: ['f1-netem-room1-room2-wait', 'f1-netem-room1-room2']
    })
    expect(byName.get('f1-netem-room1-room2-wait')).toMatchObject({ deadline: '4s' })
    expect(byName.get('f1-netem-room1-room2')).toMatchObject({
      deadline: '14s',
      templateType: 'NetworkChaos'
    })
    expect(byName.get('f2-down-broker-1-wait')).toMatchObject({ deadline: '6s' })
    expect(byName.get('f2-down-broker-1')).toMatchObject({
      deadline: '8s',
      podChaos: { action: 'pod-failure' }
    })
  })

  it('puts the same Workflow on the given cron in the Schedule', () => {
    const [workflow, schedule] = objects(render('room1-isolated.yaml', '30 9 * * 1')) as [
      WorkflowObject,
      ScheduleObject
    ]
    expect(schedule.spec).toMatchObject({
      schedule: '30 9 * * 1',
      type: 'Workflow',
      concurrencyPolicy: 'Forbid'
    })
    expect(schedule.spec.workflow).toEqual(workflow.spec)
  })

  it('lists what it could not express in the README', () => {
    const readme = render('room1-broker-paused.yaml').get('README.md')!
    expect(readme).toMatch(/at 5s, `action: pause, target: all brokers of room1`: not exported/)
    for (const gap of [
      'No reject mode',
      'No pod pause',
      'per pod, not per link',
      'netem',
      '#3631',
      '#3634',
      'ONE object'
    ]) {
      expect(readme).toContain(gap)
    }
  })

  it('matches test/golden/chaos-mesh/room1-lossy', () => {
    expectGoldenDir('test/golden/chaos-mesh/room1-lossy', render('room1-lossy.yaml'))
  })
})

const base: WorkflowObject = {
  apiVersion: 'chaos-mesh.org/v1alpha1',
  kind: 'Workflow',
  metadata: { name: 'w', namespace: 'n', labels: {} },
  spec: {
    entry: 'timeline',
    templates: [
      { name: 'timeline', templateType: 'Serial', children: ['cut'] },
      {
        name: 'cut',
        templateType: 'NetworkChaos',
        deadline: '5s',
        networkChaos: {
          action: 'delay',
          mode: 'all',
          direction: 'to',
          selector: { namespaces: ['n'], labelSelectors: { 'drstudio.io/room': 'room1' } },
          delay: { latency: '10ms' }
        }
      }
    ]
  }
}

function withChaos(patch: Record<string, unknown>): WorkflowObject {
  const w = structuredClone(base)
  Object.assign((w.spec.templates[1] as { networkChaos: object }).networkChaos, patch)
  return w
}

describe('webhookProblems: rules only the admission webhook enforces', () => {
  it('accepts a valid Workflow', () => {
    expect(webhookProblems(base)).toEqual([])
  })

  it.each([
    ['direction both without a target', { direction: 'both' }, /direction: "both" needs a target/],
    ['an empty selector', { selector: { namespaces: ['n'] } }, /selector is empty/],
    [
      'a latency that is no Go duration',
      { delay: { latency: '10 ms' } },
      /latency: "10 ms" is not a Go duration/
    ],
    ['a duration inside a Workflow chaos', { duration: '5s' }, /use the template's deadline/],
    [
      'a rate without integer',
      { action: 'bandwidth', bandwidth: { rate: '0.5mbit', limit: 1, buffer: 1 } },
      /rate: "0.5mbit"/
    ],
    ['a loss over 100', { action: 'loss', loss: { loss: '130' } }, /not a percentage/]
  ])('refuses %s', (_what, patch, message) => {
    expect(webhookProblems(withChaos(patch)).join('\n')).toMatch(message)
  })

  it('refuses a missing child, duplicate names, a bad name and a Suspend without deadline', () => {
    const w = structuredClone(base)
    w.spec.templates.push(
      { name: 'cut', templateType: 'Suspend', deadline: '' },
      { name: 'Bad_Name', templateType: 'Parallel', children: ['nowhere'] }
    )
    const text = webhookProblems(w).join('\n')
    expect(text).toMatch(/names must be unique \(cut\)/)
    expect(text).toMatch(/a Suspend needs a deadline/)
    expect(text).toMatch(/"Bad_Name" is not a DNS-1123 subdomain/)
    expect(text).toMatch(/no template named "nowhere"/)
  })

  it('refuses a PodChaos container-kill without container names', () => {
    const w = structuredClone(base)
    w.spec.templates[1] = {
      name: 'cut',
      templateType: 'PodChaos',
      deadline: '5s',
      podChaos: {
        action: 'container-kill',
        mode: 'all',
        selector: { namespaces: ['n'], labelSelectors: { a: 'b' } }
      }
    }
    expect(webhookProblems(w).join()).toMatch(/container-kill needs the container names/)
  })

  it.each([
    ['0 10 * * 3', null],
    ['@weekly', null],
    ['@every 1h30m', null],
    ['@every soon', 'Go duration'],
    ['every day', '5-field'],
    ['0 10 * *', '5-field']
  ])('cron %s', (cron, problem) => {
    const p = cronProblem(cron)
    if (problem === null) expect(p).toBeNull()
    else expect(p).toContain(problem)
  })
})
