import { nodesOfKind } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { Endpoints, ServerNode } from './placeholders'
import { allNameServers } from './rocketmq-files'
import { placeholderGuard, shellWord } from './shell'

/** What `drstudio mgmt --config` reads: the node itself, probe timings and every room's name servers. */
export interface ManagementConfigFile {
  id: string
  room: string
  host: string
  /** A number once filled; a `<...-port>` placeholder string until then. */
  port: number | string
  probeIntervalMs: number
  probeTimeoutMs: number
  nameServers: { id: string; room: string; address: string }[]
  /** Controller-mode replicas of every room; absent when the topology has none. */
  brokers?: { id: string; room: string; address: string }[]
  /** Every room's proxies (gRPC address); absent when the topology has none. */
  proxies?: {
    id: string
    room: string
    address: string
    remotingAddress: string
    zoneMode: boolean
  }[]
}

function portValue(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value
}

export function managementConfig(
  topology: Topology,
  node: ServerNode,
  ep: Endpoints
): ManagementConfigFile {
  const proxies = nodesOfKind(topology, 'proxy')
  const replicas = nodesOfKind(topology, 'broker').filter((b) => b.spec.role === 'replica')
  return {
    id: node.id,
    room: node.room,
    host: ep.host(node),
    port: portValue(ep.port(node)),
    probeIntervalMs: topology.settings.probeIntervalMs,
    probeTimeoutMs: topology.settings.probeTimeoutMs,
    nameServers: allNameServers(topology).map((ns) => ({
      id: ns.id,
      room: ns.room,
      address: ep.address(ns)
    })),
    ...(proxies.length > 0
      ? {
          proxies: proxies.map((p) => ({
            id: p.id,
            room: p.room,
            address: ep.address(p),
            remotingAddress: `${ep.host(p)}:${ep.remotingPort(p)}`,
            zoneMode: p.spec.zoneMode
          }))
        }
      : {}),
    // Clients place a controller-mode group's master in a room by its address.
    ...(replicas.length > 0
      ? { brokers: replicas.map((b) => ({ id: b.id, room: b.room, address: ep.address(b) })) }
      : {})
  }
}

export function managementJson(topology: Topology, node: ServerNode, ep: Endpoints): string {
  return JSON.stringify(managementConfig(topology, node, ep), null, 2) + '\n'
}

export function startManagementScript(node: ServerNode, drstudioCommand: string): string {
  const command = drstudioCommand.trim().split(/\s+/).map(shellWord).join(' ')
  return [
    '#!/bin/sh',
    `# Starts management node ${node.id} (room ${node.room}): the address server its room's brokers and`,
    '# clients ask for name servers (GET /rocketmq/nsaddr). Start it first, before name servers and brokers.',
    'set -eu',
    'cd "$(dirname "$0")"',
    ...placeholderGuard('management.json'),
    `exec ${command} mgmt --config "$(pwd)/management.json"`,
    ''
  ].join('\n')
}
