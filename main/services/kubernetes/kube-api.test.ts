import { describe, expect, it } from 'vitest'
import { describeRef, resourcePath } from './kube-api'

describe('resourcePath', () => {
  it('puts core kinds under /api and grouped kinds under /apis, namespaced unless cluster-wide', () => {
    expect(resourcePath({ apiVersion: 'v1', kind: 'Namespace', name: 'drs', namespace: 'x' })).toBe(
      '/api/v1/namespaces/drs'
    )
    expect(
      resourcePath({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'drs', name: 'b-1' })
    ).toBe('/api/v1/namespaces/drs/configmaps/b-1')
    expect(resourcePath({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: 'drs' })).toBe(
      '/apis/apps/v1/namespaces/drs/statefulsets'
    )
    expect(resourcePath({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: null })).toBe(
      '/apis/apps/v1/deployments'
    )
    expect(
      resourcePath({
        apiVersion: 'chaos-mesh.org/v1alpha1',
        kind: 'NetworkChaos',
        namespace: 'drs',
        name: 'cut'
      })
    ).toBe('/apis/chaos-mesh.org/v1alpha1/namespaces/drs/networkchaos/cut')
  })

  it('refuses a kind it does not drive, naming the ones it does', () => {
    expect(() => resourcePath({ apiVersion: 'v1', kind: 'Lease', namespace: 'x' })).toThrow(
      /DR Studio does not drive Kubernetes kind Lease; it knows Namespace, ConfigMap, /
    )
  })

  it('describes an object by kind, name and namespace', () => {
    expect(describeRef({ apiVersion: 'v1', kind: 'Service', name: 'ns-1', namespace: 'drs' })).toBe(
      'Service/ns-1 in namespace drs'
    )
    expect(
      describeRef({ apiVersion: 'v1', kind: 'Namespace', name: 'drs', namespace: 'drs' })
    ).toBe('Namespace/drs')
  })
})
