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

function namespaceObject(topology: Topology, namespace: string): INamespace {
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

/**
 * `--target kubernetes`: a Kustomize tree, `base/` (the namespace) and one folder per room with a
 * file per node and per room worker, plus a root kustomization.yaml so `kubectl apply -k DIR`
 * applies everything. Pure: paths relative to the export root, sorted.
 */
export function renderKubernetes(topology: Topology): Map<string, string> {
  checkUniqueNames(ownedNames(topology))
  const namespace = namespaceOf(topology)
  const ep = kubernetesEndpoints(namespace)
  const images = imagesOf(topology)
  const files = new Map<string, string>()
  files.set('base/namespace.yaml', yamlDocuments([namespaceObject(topology, namespace)]))
  files.set('base/kustomization.yaml', kustomization(['namespace.yaml']))
  const nodes = serverNodes(topology)
  for (const room of topology.rooms) {
    const inRoom = nodes.filter((n: ServerNode) => n.room === room.id)
    const roomFiles: string[] = []
    for (const node of inRoom) {
      const file = `${k8sName(node.id)}.yaml`
      files.set(
        `${room.id}/${file}`,
        yamlDocuments(serverObjects(topology, node, ep, images, namespace))
      )
      roomFiles.push(file)
    }
    for (const lane of roomLanes(room)) {
      const file = `${workerName(room.id, lane)}.yaml`
      files.set(
        `${room.id}/${file}`,
        yamlDocuments(workerObjects(topology, room, lane, ep, images, namespace))
      )
      roomFiles.push(file)
    }
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
      images
    })
  )
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}
