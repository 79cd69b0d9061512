import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import type { ValidateFunction } from 'ajv'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { Service } from 'kubernetes-models/v1/Service'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet'

// Offline schema checks of exported manifests, for tests: ajv and kubernetes-models are
// devDependencies, so nothing the CLI bundles may import this file.

/** The vendored Chaos Mesh CRD schemas (scripts/vendor-chaos-mesh-schemas.mjs). */
export const CHAOS_MESH_SCHEMA_DIR = 'resources/schemas/chaos-mesh-2.8.x'

/** The Kubernetes OpenAPI the core kinds are checked against (kubernetes-models 4.5.1's). */
export const KUBERNETES_MODELS_API = '1.27.1'

type Json = Record<string, unknown>

/**
 * OpenAPI 3.0 → JSON Schema 2020-ish for ajv 8: `nullable` becomes a null type, a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` becomes the numeric form, and, like kubectl's strict field
 * validation, an object with `properties` and no preserve-unknown-fields refuses unknown keys.
 */
export function openApiToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApiToJsonSchema)
  if (node === null || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node as Json)) out[k] = openApiToJsonSchema(v)
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null']
  delete out.nullable
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum']
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue
    if (out[flag] === true && typeof out[bound] === 'number') out[flag] = out[bound]
    else delete out[flag]
    if (typeof out[flag] === 'number') delete out[bound]
  }
  const preserve = out['x-kubernetes-preserve-unknown-fields'] === true
  if (out.properties && out.additionalProperties === undefined && !preserve) {
    out.additionalProperties = false
  }
  return out
}

const INT32 = {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31
} as const

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false })
  ajv.addFormat('int32', INT32)
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) })
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/)
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/)
  return ajv
}

interface VendoredCrd {
  group: string
  version: string
  kind: string
  openAPIV3Schema: Json
}

/** Compiled validators of the vendored Chaos Mesh kinds, keyed by kind. */
export function chaosMeshValidators(dir = CHAOS_MESH_SCHEMA_DIR): Map<string, ValidateFunction> {
  const ajv = newAjv()
  const out = new Map<string, ValidateFunction>()
  for (const file of ['networkchaos', 'podchaos', 'workflow', 'schedule']) {
    const crd = JSON.parse(readFileSync(join(dir, `${file}.json`), 'utf8')) as VendoredCrd
    out.set(crd.kind, ajv.compile(openApiToJsonSchema(crd.openAPIV3Schema) as Json))
  }
  return out
}

type Model = { new (data: never): { validate(): void } }

const CORE_MODELS: Record<string, Model> = {
  'v1/Namespace': Namespace as unknown as Model,
  'v1/ConfigMap': ConfigMap as unknown as Model,
  'v1/Service': Service as unknown as Model,
  'apps/v1/StatefulSet': StatefulSet as unknown as Model,
  'apps/v1/Deployment': Deployment as unknown as Model
}

/** Which kinds the export emits and this file can check. */
export const CHECKED_KINDS = [
  ...Object.keys(CORE_MODELS),
  'chaos-mesh.org/v1alpha1/NetworkChaos',
  'chaos-mesh.org/v1alpha1/PodChaos',
  'chaos-mesh.org/v1alpha1/Workflow',
  'chaos-mesh.org/v1alpha1/Schedule'
]

/** Schema errors of one manifest object ([] = valid); an unknown apiVersion/kind is an error too. */
export function createManifestChecker(): (doc: unknown) => string[] {
  const chaos = chaosMeshValidators()
  return (doc) => {
    const o = (doc ?? {}) as { apiVersion?: string; kind?: string }
    const key = `${o.apiVersion}/${o.kind}`
    const model = CORE_MODELS[key]
    if (model) {
      try {
        new model(doc as never).validate()
        return []
      } catch (e) {
        return [(e as Error).message]
      }
    }
    const validate =
      o.apiVersion === 'chaos-mesh.org/v1alpha1' ? chaos.get(o.kind ?? '') : undefined
    if (!validate) return [`${key} is not a kind this export emits (${CHECKED_KINDS.join(', ')})`]
    if (validate(doc)) return []
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`
    )
  }
}
