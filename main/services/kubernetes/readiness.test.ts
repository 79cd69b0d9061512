import { describe, expect, it } from 'vitest'
import type { KubeObject } from './kube-api'
import { podReason, readinessOf } from './readiness'

function workload(name: string, ready: number, generation = 1, observed = 1): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, generation },
    spec: { replicas: 1, selector: { matchLabels: { 'drstudio.io/node': name } } },
    status: { readyReplicas: ready, observedGeneration: observed }
  }
}

function pod(
  node: string,
  status: Record<string, unknown>,
  extra: Partial<KubeObject['metadata']> = {}
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${node}-0`, labels: { 'drstudio.io/node': node }, ...extra },
    status
  }
}

describe('readinessOf', () => {
  it('counts a workload ready only with every replica ready at its current generation', () => {
    const r = readinessOf([workload('a', 1), workload('b', 1, 2, 1), workload('c', 0)], [])
    expect(r.ready).toEqual(['a'])
    expect(r.waiting.map((w) => w.name)).toEqual(['StatefulSet/b', 'StatefulSet/c'])
    expect(r.waiting[1]!.reason).toBe('no pod yet (0/1 ready)')
  })

  it("gives each waiting workload its own pods' reasons", () => {
    const r = readinessOf(
      [workload('a', 0), workload('b', 0)],
      [
        pod('a', {
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/3 nodes are available'
            }
          ]
        }),
        pod('b', {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'broker',
              restartCount: 4,
              state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
              lastState: { terminated: { reason: 'OOMKilled', exitCode: 137 } }
            }
          ]
        })
      ]
    )
    expect(r.waiting).toEqual([
      { name: 'StatefulSet/a', reason: 'pod a-0 not scheduled: 0/3 nodes are available' },
      {
        name: 'StatefulSet/b',
        reason:
          'pod b-0 container broker: CrashLoopBackOff (back-off 40s), 4 restarts, last exit OOMKilled 137'
      }
    ])
  })
})

describe('podReason', () => {
  it('names an init step that holds the pod', () => {
    expect(
      podReason(
        pod('a', {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'broker-ip', state: { waiting: { reason: 'PodInitializing' } } }
          ],
          containerStatuses: [{ name: 'broker', state: { waiting: { reason: 'PodInitializing' } } }]
        })
      )
    ).toBe('pod a-0 container broker-ip: PodInitializing')
  })

  it('says terminating, running-not-ready and pending', () => {
    expect(podReason(pod('a', {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }))).toBe(
      'pod a-0 terminating'
    )
    expect(
      podReason(
        pod('a', { containerStatuses: [{ name: 'main', ready: false, state: { running: {} } }] })
      )
    ).toBe('pod a-0 container main: running, not ready yet')
    expect(podReason(pod('a', {}))).toBe('pod a-0 Pending')
  })
})
