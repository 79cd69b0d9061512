import { readFileSync } from 'node:fs'
import type { KubeObject } from './kube-api'
import { ENGINE_ANNOTATION, MANAGED_BY_LABEL, RUN_LABEL } from './kube-api'

interface Template {
  metadata?: { name?: string; labels?: Record<string, string> }
}
interface WorkloadSpec {
  template?: Template
  volumeClaimTemplates?: Template[]
  persistentVolumeClaimRetentionPolicy?: { whenDeleted: string; whenScaled: string }
}

const withRun = (t: Template, runId: string): void => {
  t.metadata = {
    ...t.metadata,
    labels: { ...t.metadata?.labels, [MANAGED_BY_LABEL]: 'drstudio', [RUN_LABEL]: runId }
  }
}

/**
 * A copy of the object labelled with the run and annotated with the engine that created it. Its
 * pods and volume claims carry the run label too (faults select the pods, teardown finds the
 * claims), and a StatefulSet's claims go with it: a run's stores are not kept for the next one.
 */
export function stampRun(object: KubeObject, runId: string, engine: string): KubeObject {
  const copy = structuredClone(object)
  copy.metadata.labels = {
    ...copy.metadata.labels,
    [MANAGED_BY_LABEL]: 'drstudio',
    [RUN_LABEL]: runId
  }
  copy.metadata.annotations = { ...copy.metadata.annotations, [ENGINE_ANNOTATION]: engine }
  const spec = copy.spec as WorkloadSpec | undefined
  if (spec?.template) withRun(spec.template, runId)
  if (spec?.volumeClaimTemplates?.length) {
    for (const claim of spec.volumeClaimTemplates) withRun(claim, runId)
    spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' }
  }
  return copy
}

/** The claims a StatefulSet's pods get: `<template>-<set>-<ordinal>`. */
export function claimNames(object: KubeObject): string[] {
  if (object.kind !== 'StatefulSet') return []
  const spec = object.spec as (WorkloadSpec & { replicas?: number }) | undefined
  const replicas = spec?.replicas ?? 1
  return (spec?.volumeClaimTemplates ?? []).flatMap((t) =>
    Array.from({ length: replicas }, (_, i) => `${t.metadata?.name}-${object.metadata.name}-${i}`)
  )
}

const CREATE_RANK: Record<string, number> = { Namespace: 0, ConfigMap: 1, Service: 2 }

/** Namespace first, then configuration, Services, and the workloads last (stable otherwise). */
export function createOrder(objects: KubeObject[]): KubeObject[] {
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => (CREATE_RANK[a.o.kind] ?? 3) - (CREATE_RANK[b.o.kind] ?? 3) || a.i - b.i)
    .map(({ o }) => o)
}

/**
 * `<host>-<machine>/<pid>`: the machine id keeps two hosts of one name (CI runners, containers
 * called localhost) from sweeping each other's live runs.
 */
export function engineIdentity(host: string, pid: number, machineId = readMachineId()): string {
  return `${host}${machineId ? `-${machineId.slice(0, 12)}` : ''}/${pid}`
}

function readMachineId(): string {
  try {
    return readFileSync('/etc/machine-id', 'utf8').trim()
  } catch {
    return ''
  }
}

/** Whether an engine identity names a live process: this machine's by pid, any other's yes. */
export function engineAliveOn(
  machine: string,
  isPidAlive: (pid: number) => boolean
): (engine: string) => boolean {
  return (engine) => {
    const m = /^(.*)\/(\d+)$/.exec(engine)
    if (!m || m[1] !== machine) return true
    return isPidAlive(Number(m[2]))
  }
}
