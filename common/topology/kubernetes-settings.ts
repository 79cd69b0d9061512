import { z } from 'zod'
import type { Problem } from './problem'

// `settings.kubernetes`: what `drstudio export --target kubernetes` needs beyond the topology
// itself. Every field is optional, so a topology without it saves unchanged; the exporter applies
// the defaults (kubernetesDefaults).

/** A label name or the part after a prefix: 63 characters, alphanumeric at both ends. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/
/** A DNS-1123 subdomain (label prefixes). */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
/** A DNS-1123 label: a Kubernetes namespace name (the topology's, `--namespace`, a run target's). */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/
/** A Kubernetes resource quantity: 500m, 0.5, 256Mi, 1G. */
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/

/** Why a label key (`topology.kubernetes.io/zone`) is not one Kubernetes accepts, or null. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.lastIndexOf('/')
  const prefix = slash >= 0 ? key.slice(0, slash) : null
  const name = key.slice(slash + 1)
  if (prefix !== null && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return `prefix "${prefix}" is not a DNS subdomain (lower-case letters, digits, - and .)`
  }
  if (!LABEL_NAME.test(name)) {
    return `name "${name}" must be 1-63 letters, digits, -, _ or ., starting and ending alphanumeric`
  }
  return null
}

const labelKeySchema = z.string().superRefine((v, ctx) => {
  const p = labelKeyProblem(v)
  if (p)
    ctx.addIssue({
      code: 'custom',
      message: `label key "${v}": ${p}`,
      params: { hint: 'write a node label key such as topology.kubernetes.io/zone' }
    })
})

const labelValueSchema = z.string().regex(LABEL_NAME, {
  message:
    'a zone is a label value: 1-63 letters, digits, -, _ or ., starting and ending alphanumeric'
})

const quantitySchema = z.string().regex(QUANTITY, {
  message: 'not a Kubernetes quantity; write e.g. 250m or 0.5 (CPU), 512Mi or 1Gi (memory)'
})

const cpuMemorySchema = z.strictObject({
  cpu: quantitySchema.optional(),
  memory: quantitySchema.optional()
})

/** Requests and limits of one kind of pod; absent fields keep the export's small defaults. */
export const kubernetesResourcesSchema = z.strictObject({
  requests: cpuMemorySchema.optional(),
  limits: cpuMemorySchema.optional()
})
export type KubernetesResources = z.infer<typeof kubernetesResourcesSchema>

/** The kinds of pod the export writes; `worker` is a room worker (the room's clients of one lane). */
export const KUBERNETES_POD_KINDS = [
  'nameserver',
  'broker',
  'controller',
  'proxy',
  'management',
  'worker'
] as const
export type KubernetesPodKind = (typeof KUBERNETES_POD_KINDS)[number]

export const kubernetesSettingsSchema = z.strictObject({
  /** Namespace of every object; default `drs-<topology name>`. */
  namespace: z
    .string()
    .regex(DNS_LABEL, { message: 'a namespace is a DNS label: lower-case letters, digits and -' })
    .optional(),
  /** Node label that places a room; default topology.kubernetes.io/zone. */
  zoneLabel: labelKeySchema.optional(),
  /** That label's value per room id; a room not listed uses its id. */
  zones: z.record(z.string(), labelValueSchema).optional(),
  /** Image of name servers, brokers, controllers and proxies; default apache/rocketmq:5.3.3. */
  rocketmqImage: z.string().trim().min(1).optional(),
  /** Image with DR Studio (management nodes, room workers); default drstudio:local (docs/kubernetes.md). */
  drstudioImage: z.string().trim().min(1).optional(),
  resources: z
    .strictObject(
      Object.fromEntries(
        KUBERNETES_POD_KINDS.map((k) => [k, kubernetesResourcesSchema.optional()])
      ) as Record<KubernetesPodKind, z.ZodOptional<typeof kubernetesResourcesSchema>>
    )
    .optional()
})
export type KubernetesSettings = z.infer<typeof kubernetesSettingsSchema>

/** Zones must name rooms of the topology. */
export function kubernetesProblems(topology: {
  rooms: { id: string }[]
  settings: { kubernetes?: KubernetesSettings }
}): Problem[] {
  const rooms = topology.rooms.map((r) => r.id)
  return Object.keys(topology.settings.kubernetes?.zones ?? {})
    .filter((room) => !rooms.includes(room))
    .map((room) => ({
      code: 'unknown-room',
      path: `$.settings.kubernetes.zones[${JSON.stringify(room)}]`,
      message: `zone given for room "${room}", which is not in the topology`,
      hint: `key zones by room id: ${rooms.join(', ') || '(no rooms yet)'}`
    }))
}
