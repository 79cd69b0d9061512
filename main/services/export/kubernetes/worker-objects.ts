import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment'
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap'
import type { ClientLane } from '../../../../common/topology/lanes'
import { CLIENT_LANES, isJavaLane } from '../../../../common/topology/lanes'
import type { RoomSpec, Topology } from '../../../../common/topology/schema'
import { javaWorkerCommand } from '../../workers/java-worker-command'
import { clientJson } from '../client-files'
import type { Endpoints } from '../placeholders'
import { managementOf } from '../rocketmq-files'
import { k8sName, LANE_LABEL, podLabels } from './names'
import type { KubernetesImages } from './resources'
import { resourcesFor } from './resources'
import { zoneAffinity } from './server-objects'

/** Where the DR Studio image keeps the pinned RocketMQ jars and the Java worker (npm run setup). */
export const IMAGE_APP_DIR = '/opt/drstudio'

/** The lanes a room's clients use, in LANE_TRAITS order. */
export function roomLanes(room: RoomSpec): ClientLane[] {
  const used = new Set([...room.producers, ...room.consumers].map((c) => c.lane))
  return CLIENT_LANES.filter((l) => used.has(l))
}

/** The Deployment's name for a room's clients of one lane. */
export function workerName(room: string, lane: ClientLane): string {
  return k8sName(`worker-${room}-${lane}`)
}

/** The worker process: a Node room worker, or the Java client worker JVM of a Java lane. */
function workerCommand(topology: Topology, room: RoomSpec, lane: ClientLane, ep: Endpoints) {
  if (!isJavaLane(lane)) return ['drstudio', 'worker']
  const mgmt = managementOf(topology, room.id)[0]
  return javaWorkerCommand({
    java: 'java',
    rocketmqLib: `${IMAGE_APP_DIR}/.rocketmq/lib`,
    workerJar: `${IMAGE_APP_DIR}/.rocketmq/java-worker/drstudio-java-worker.jar`,
    plan: {
      workerId: `java-${room.id}-${lane}`,
      room: room.id,
      lane,
      addressServer: mgmt ? ep.address(mgmt) : null,
      tuning: {}
    },
    workDir: '/tmp/worker',
    env: {}
  }).argv
}

/**
 * A room's clients of one lane: a zone-pinned Deployment whose container keeps stdin open, so the
 * engine drives it over `kubectl attach` with the framed worker protocol (docs/worker-protocol.md),
 * a path no NetworkChaos can cut. client.json is the room's client settings, for reference.
 */
export function workerObjects(
  topology: Topology,
  room: RoomSpec,
  lane: ClientLane,
  ep: Endpoints,
  images: KubernetesImages,
  namespace: string
): [IConfigMap, IDeployment] {
  const name = workerName(room.id, lane)
  const labels = podLabels(room.id, name, 'worker', { [LANE_LABEL]: lane })
  const metadata = { name, namespace, labels }
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { ...metadata, name: `${name}-config` },
      data: { 'client.json': clientJson(topology, room, ep) }
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'drstudio.io/node': name } },
        template: {
          metadata: { labels },
          spec: {
            affinity: zoneAffinity(topology, room.id),
            containers: [
              {
                name: 'worker',
                image: images.drstudio,
                command: workerCommand(topology, room, lane, ep),
                stdin: true,
                // The engine's attach stream ending is the worker's stdin EOF: it stops its
                // clients, as a local worker does when its engine dies (kubelet starts it afresh).
                stdinOnce: true,
                env: [
                  { name: 'DRSTUDIO_ROOM', value: room.id },
                  { name: 'DRSTUDIO_LANE', value: lane }
                ],
                resources: resourcesFor(topology, 'worker'),
                volumeMounts: [{ name: 'config', mountPath: '/etc/drstudio' }]
              }
            ],
            volumes: [{ name: 'config', configMap: { name: `${name}-config` } }]
          }
        }
      }
    }
  ]
}
