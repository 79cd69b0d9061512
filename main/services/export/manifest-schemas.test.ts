import { describe, expect, it } from 'vitest'
import { createManifestChecker, openApiToJsonSchema } from './manifest-schemas'

const check = createManifestChecker()

const partition = {
  apiVersion: 'chaos-mesh.org/v1alpha1',
  kind: 'NetworkChaos',
  metadata: { name: 'cut', namespace: 'drs-x' },
  spec: {
    action: 'partition',
    mode: 'all',
    direction: 'both',
    selector: { namespaces: ['drs-x'], labelSelectors: { 'drstudio.io/room': 'room1' } },
    target: {
      mode: 'all',
      selector: { namespaces: ['drs-x'], labelSelectors: { 'drstudio.io/room': 'room2' } }
    }
  }
}

describe('openApiToJsonSchema', () => {
  it('turns nullable and boolean exclusiveMinimum into JSON Schema and closes objects', () => {
    expect(
      openApiToJsonSchema({
        type: 'object',
        properties: {
          a: { type: 'string', nullable: true },
          b: { type: 'number', minimum: 0, exclusiveMinimum: true },
          c: { type: 'number', minimum: 1, exclusiveMinimum: false },
          d: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: {} }
        }
      })
    ).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        a: { type: ['string', 'null'] },
        b: { type: 'number', exclusiveMinimum: 0 },
        c: { type: 'number', minimum: 1 },
        d: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: {} }
      }
    })
  })
})

describe('vendored Chaos Mesh 2.8.x schemas', () => {
  it('accept a partition', () => {
    expect(check(partition)).toEqual([])
  })

  it.each([
    ['an unknown direction', { direction: 'sideways' }],
    ['a misspelt key (strict fields)', { directon: 'both' }],
    ['a latency with a space', { action: 'delay', delay: { latency: '20 ms' } }],
    ['bandwidth without limit and buffer', { action: 'bandwidth', bandwidth: { rate: '1mbit' } }]
  ])('refuse %s', (_what, patch) => {
    expect(check({ ...partition, spec: { ...partition.spec, ...patch } })).not.toEqual([])
  })

  it('refuse a PodChaos pod-pause (no such action)', () => {
    const pod = {
      apiVersion: 'chaos-mesh.org/v1alpha1',
      kind: 'PodChaos',
      metadata: { name: 'p' },
      spec: { action: 'pod-pause', mode: 'all', selector: { labelSelectors: { a: 'b' } } }
    }
    expect(check(pod).join()).toMatch(/action/)
    expect(check({ ...pod, spec: { ...pod.spec, action: 'pod-kill' } })).toEqual([])
  })
})

describe('kubernetes-models core kinds', () => {
  it('refuse a StatefulSet with replicas "one" and accept it with 1', () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'x' },
      spec: {
        serviceName: 'x',
        replicas: 'one',
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } }
      }
    }
    expect(check(sts).join()).toMatch(/replicas/)
    expect(check({ ...sts, spec: { ...sts.spec, replicas: 1 } })).toEqual([])
  })

  it('name an unknown kind', () => {
    expect(check({ apiVersion: 'v1', kind: 'Pod' }).join()).toMatch(/v1\/Pod is not a kind/)
  })
})
