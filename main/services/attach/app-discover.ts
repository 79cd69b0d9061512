import type { z } from 'zod'
import type { ClusterDiscoverOutput, clusterDiscoverInputSchema } from '../../../common/contract'
import { RemotingRpc } from '../remoting'
import { parseNamesrvList } from './addresses'
import type { ConnectRequest } from './connect'
import { connectToCluster } from './connect'
import type { DiscoveryPort, DiscoveryProgress } from './discovery'
import { APP_WORDS } from './placement'
import { remotingDiscoveryPort } from './remoting-ports'
import { APP_CREATE_HINT, formatTopicCheck } from './topic-check'

type Input = z.output<typeof clusterDiscoverInputSchema>

/** The dialog's fields as a connect request, in the dialog's words. */
export function requestFromDialog(input: Input): ConnectRequest {
  const topic = input.topic?.trim() || undefined
  const map = input.roomMap?.trim() ? { text: input.roomMap, source: 'Room map' } : undefined
  return {
    namesrv: parseNamesrvList(input.namesrv, 'Name servers'),
    ...(input.addressServer?.trim() ? { addressServer: input.addressServer.trim() } : {}),
    ...(input.rooms !== 'auto' ? { mode: input.rooms } : {}),
    ...(map ? { roomMap: map } : {}),
    ...(input.rooms === 'regex' && input.brokerPattern?.trim()
      ? { brokerPattern: input.brokerPattern.trim() }
      : {}),
    ...(input.namesrvPattern?.trim() ? { namesrvPattern: input.namesrvPattern.trim() } : {}),
    ...(topic ? { topic } : {}),
    clients: input.clients && topic !== undefined,
    createTopic: input.createTopic,
    words: APP_WORDS,
    createHint: APP_CREATE_HINT
  }
}

/**
 * Connect to cluster…: discovers with the dialog's choices and answers with the topology to open
 * (untitled) or the problems to show. Only reads the cluster.
 */
export async function discoverForApp(
  input: Input,
  onProgress: (p: DiscoveryProgress) => void,
  port?: DiscoveryPort
): Promise<ClusterDiscoverOutput> {
  const req = requestFromDialog(input)
  if (req.namesrv.length === 0 && !req.addressServer) {
    throw new Error('enter the name servers (host:port;host:port) or an address server')
  }
  const rpc = port ? undefined : new RemotingRpc()
  try {
    const r = await connectToCluster(req, port ?? remotingDiscoveryPort(rpc!), onProgress)
    const topology = r.topology
    return {
      ok: r.ok,
      opened: topology
        ? { path: null, name: topology.name, document: topology, problems: [] }
        : null,
      rooms: (topology?.rooms ?? []).map((room) => ({
        id: room.id,
        name: room.name ?? room.id,
        nameServers: room.nameServers.length,
        brokers: room.brokers.length
      })),
      nameServers: r.discovery.nameServers.map((n) => ({
        address: n.address,
        ok: n.ok,
        ...(n.error ? { error: n.error } : {})
      })),
      problems: r.problems,
      warnings: r.warnings,
      topic: r.topic ? { ok: r.topic.ok, lines: formatTopicCheck(r.topic) } : null
    }
  } finally {
    rpc?.close()
  }
}
