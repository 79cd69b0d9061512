import { stringify } from 'yaml'
import type { INamespace } from 'kubernetes-models/v1/Namespace'
import type { Topology } from '../../../../common/topology/schema'
import type { ServerNode } from '../placeholders'
import { serverNodes } from '../placeholders'
import {
  checkUniqueNames,
  k8sName,
  kubernetesEndpoints,
  MANAGED_BY,
  namespaceOf,
  zoneLabelOf,
  zoneOf
} from './names'
import { imagesOf } from './resources'
import { kubernetesReadme } from './kubernetes-readme'
import { serverObjects } from './server-objects'
import { roomLanes, workerName, workerObjects } from './worker-objects'

/** Objects as one multi-document YAML file. */
export function yamlDocuments(objects: readonly unknown[]): string {
  return objects
    .map((o) => stringify(o, { lineWidth: 0, aliasDuplicateObjects: false }))
    .join('---\n')
}

function kustomization(resources: string[]): string {
  return stringify(
    { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources },
    { lineWidth: 0 }
  )
}

function namespaceObject(topology: Topology, namespace: string): INamespace & KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespace,
      labels: { ...MANAGED_BY, 'drstudio.io/topology': k8sName(topology.name) || 'topology' }
    }
  }
}

/** Every object name the export writes, by the id it came from, so two cannot collide. */
function ownedNames(topology: Topology): { id: string; name: string }[] {
  return [
    ...serverNodes(topology).map((n) => ({ id: n.id, name: k8sName(n.id) })),
    ...topology.rooms.flatMap((room) =>
      roomLanes(room).map((lane) => ({
        id: `room ${room.id}'s ${lane} worker`,
        name: workerName(room.id, lane)
      }))
    )
  ]
}

/** One file of the export and the objects it holds, in apply order. */
export interface KubernetesObjectFile {
  /** Relative to the export root, e.g. `room1/broker-a-1.yaml`. */
  path: string
  objects: KubernetesObject[]
}

/** The fields every Kubernetes object has that DR Studio reads back. */
export interface KubernetesObject {
  apiVersion: string
  kind: string
  metadata: { name: string; namespace?: string; labels?: Record<string, string> }
}

/**
 * Every object of the topology, file by file: the namespace first, then each room's nodes and
 * workers. The export writes them as YAML; a Kubernetes run applies them.
 */
export function kubernetesObjectFiles(topology: Topology): {
  namespace: string
  files: KubernetesObjectFile[]
} {
  checkUniqueNames(ownedNames(topology))
  const namespace = namespaceOf(topology)
  const ep = kubernetesEndpoints(namespace)
  const images = imagesOf(topology)
  const files: KubernetesObjectFile[] = [
    { path: 'base/namespace.yaml', objects: [namespaceObject(topology, namespace)] }
  ]
  const nodes = serverNodes(topology)
  for (const room of topology.rooms) {
    for (const node of nodes.filter((n: ServerNode) => n.room === room.id)) {
      files.push({
        path: `${room.id}/${k8sName(node.id)}.yaml`,
        objects: serverObjects(topology, node, ep, images, namespace) as KubernetesObject[]
      })
    }
    for (const lane of roomLanes(room)) {
      files.push({
        path: `${room.id}/${workerName(room.id, lane)}.yaml`,
        objects: workerObjects(topology, room, lane, ep, images, namespace) as KubernetesObject[]
      })
    }
  }
  return { namespace, files }
}

/**
 * `--target kubernetes`: a Kustomize tree, `base/` (the namespace) and one folder per room with a
 * file per node and per room worker, plus a root kustomization.yaml so `kubectl apply -k DIR`
 * applies everything. Pure: paths relative to the export root, sorted.
 */
export function renderKubernetes(topology: Topology): Map<string, string> {
  const { namespace, files: objectFiles } = kubernetesObjectFiles(topology)
  const files = new Map<string, string>()
  for (const f of objectFiles) files.set(f.path, yamlDocuments(f.objects))
  files.set('base/kustomization.yaml', kustomization(['namespace.yaml']))
  for (const room of topology.rooms) {
    const roomFiles = objectFiles
      .filter((f) => f.path.startsWith(`${room.id}/`))
      .map((f) => f.path.slice(room.id.length + 1))
    files.set(`${room.id}/kustomization.yaml`, kustomization(roomFiles))
  }
  files.set('kustomization.yaml', kustomization(['base', ...topology.rooms.map((r) => r.id)]))
  files.set(
    'README.md',
    kubernetesReadme({
      topology,
      namespace,
      zoneLabel: zoneLabelOf(topology),
      zones: topology.rooms.map((r) => ({ room: r.id, zone: zoneOf(topology, r.id) })),
      images: imagesOf(topology)
    })
  )
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
