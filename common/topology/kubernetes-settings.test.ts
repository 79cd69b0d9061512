import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { labelKeyProblem } from './kubernetes-settings'
import type { Problem } from './validate'
import { serializeTopology, validateTopology } from './validate'

function problemsWith(kubernetes: unknown): Problem[] {
  const doc = JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))
  doc.settings.kubernetes = kubernetes
  const r = validateTopology(doc)
  return r.ok ? [] : r.problems
}

describe('settings.kubernetes', () => {
  it('accepts a zone label, zones per room, images and resources', () => {
    expect(
      problemsWith({
        namespace: 'dr-lab',
        zoneLabel: 'example.com/room',
        zones: { room1: 'eu-west-1a', room2: 'eu-west-1b' },
        rocketmqImage: 'registry.local/rocketmq:5.3.3',
        resources: {
          broker: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } }
        }
      })
    ).toEqual([])
  })

  it('names a zone of a room the topology lacks, with the rooms to use', () => {
    const [p] = problemsWith({ zones: { room9: 'a' } })
    expect(p).toMatchObject({ code: 'unknown-room', path: '$.settings.kubernetes.zones["room9"]' })
    expect(p!.hint).toContain('room1, room2')
  })

  it.each([
    [{ zoneLabel: 'Topology.Example/zone' }, '$.settings.kubernetes.zoneLabel'],
    [{ zones: { room1: 'eu west' } }, '$.settings.kubernetes.zones.room1'],
    [{ namespace: 'DR_Lab' }, '$.settings.kubernetes.namespace'],
    [
      { resources: { broker: { requests: { cpu: 'half' } } } },
      '$.settings.kubernetes.resources.broker.requests.cpu'
    ],
    [{ resources: { zookeeper: {} } }, '$.settings.kubernetes.resources.zookeeper'],
    [{ zoneLable: 'x' }, '$.settings.kubernetes.zoneLable']
  ])('refuses %j at its path', (kubernetes, path) => {
    expect(problemsWith(kubernetes).map((p) => p.path)).toContain(path)
  })
})

describe('labelKeyProblem', () => {
  it.each([
    ['topology.kubernetes.io/zone', null],
    ['zone', null],
    ['a/b/c', 'prefix'],
    ['example.com/', 'name'],
    ['-zone', 'name']
  ])('%s', (key, problem) => {
    const p = labelKeyProblem(key)
    if (problem === null) expect(p).toBeNull()
    else expect(p).toContain(problem)
  })
})

describe('settings.kubernetes in a saved topology', () => {
  it('survives serializeTopology unchanged', () => {
    const doc = JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))
    doc.settings.kubernetes = { zoneLabel: 'example.com/room', zones: { room1: 'a' } }
    const r = validateTopology(doc)
    if (!r.ok) throw new Error(JSON.stringify(r.problems))
    expect(JSON.parse(serializeTopology(r.topology)).settings.kubernetes).toEqual(
      doc.settings.kubernetes
    )
  })
})
