import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brokerGroupRoom, listNodes, needsTimerWheel } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import type { Discovery, ManagementNodeConfig } from './config'
import { brokerProperties, namesrvProperties, proxyConfig, renderProperties } from './config'
import type { ControllerPeer } from './controller-config'
import {
  controllerPeers,
  controllerProperties,
  embeddedControllerProperties
} from './controller-config'
import type { CommandSpec, JvmContext } from './jvm'
import { brokerCommand, controllerCommand, namesrvCommand, proxyCommand } from './jvm'
import type { NodeProcess } from './node-process'

/** The management-node process command; a packaged app passes its built entry instead of tsx. */
export type ManagementCommand = (configFile: string) => {
  command: string
  args: string[]
  cwd?: string
  /** Extra environment, e.g. ELECTRON_RUN_AS_NODE when the command is the Electron binary. */
  env?: Record<string, string>
}

/** Everything writing one node's configuration needs from its sandbox. */
export interface NodeCommandContext {
  topology: Topology
  nodes: readonly NodeProcess[]
  runDir: string
  jvm: () => JvmContext
  fastBrokerExpiry: boolean
  management: ManagementCommand
  /** Per room, the name servers its management node listed just before its brokers launched. */
  namesrvAtLaunch?: ReadonlyMap<string, string[]>
}

/** The management node a room's brokers and proxies learn the name servers from. */
export function managementOfRoom(
  nodes: readonly NodeProcess[],
  room: string
): NodeProcess | undefined {
  return nodes.find((n) => n.kind === 'management' && n.room === room)
}

/** How a room's brokers and proxies learn the name servers: its management node, or a static list. */
export function discoveryFor(room: string, ctx: NodeCommandContext): Discovery {
  if (ctx.topology.settings.namesrvDiscovery === 'management') {
    const mgmt = managementOfRoom(ctx.nodes, room)!
    const atLaunch = ctx.namesrvAtLaunch?.get(room)
    return {
      mode: 'management',
      address: `${mgmt.host}:${mgmt.port}`,
      ...(atLaunch ? { atLaunch } : {})
    }
  }
  return {
    mode: 'static',
    namesrvAddr: ctx.nodes.filter((n) => n.kind === 'nameserver').map((n) => `${n.host}:${n.port}`)
  }
}

/**
 * The controller quorum in document order: standalone controllers and name servers that embed one
 * (their controllerPort), each with its DLedger self id.
 */
export function quorumOf(nodes: readonly NodeProcess[]): ControllerPeer[] {
  return controllerPeers(
    nodes.flatMap((n) =>
      n.kind === 'controller'
        ? [{ nodeId: n.id, host: n.host, port: n.port }]
        : n.kind === 'nameserver' && n.controllerPort !== undefined
          ? [{ nodeId: n.id, host: n.host, port: n.controllerPort }]
          : []
    )
  )
}

function controllerInput(rt: NodeProcess, ctx: NodeCommandContext) {
  const peers = quorumOf(ctx.nodes)
  return {
    self: peers.find((p) => p.nodeId === rt.id)!,
    peers,
    nodeDir: rt.dir,
    ...(ctx.topology.controllerMode ? { mode: ctx.topology.controllerMode } : {}),
    fastScan: ctx.fastBrokerExpiry
  }
}

/** Writes a node's configuration files into its folder and returns the command that runs it. */
export function writeNodeConfig(rt: NodeProcess, ctx: NodeCommandContext): CommandSpec {
  mkdirSync(rt.dir, { recursive: true })
  const header = [
    `DR Studio sandbox, node ${rt.id} (${rt.kind}) in room ${rt.room}`,
    `run folder ${ctx.runDir}`
  ]
  const node = rt.node
  switch (node.kind) {
    case 'nameserver': {
      const file = join(rt.dir, 'namesrv.properties')
      const props = namesrvProperties({
        host: rt.host,
        port: rt.port,
        nodeDir: rt.dir,
        fastBrokerExpiry: ctx.fastBrokerExpiry
      })
      const embedded = rt.controllerPort !== undefined
      if (embedded) Object.assign(props, embeddedControllerProperties(controllerInput(rt, ctx)))
      writeFileSync(file, renderProperties(props, header))
      return namesrvCommand(ctx.jvm(), rt.dir, file, embedded)
    }
    case 'controller': {
      const file = join(rt.dir, 'controller.properties')
      writeFileSync(file, renderProperties(controllerProperties(controllerInput(rt, ctx)), header))
      return controllerCommand(ctx.jvm(), rt.dir, file)
    }
    case 'broker': {
      const file = join(rt.dir, 'broker.conf')
      const props = brokerProperties({
        host: rt.host,
        cluster: node.spec.cluster,
        brokerName: node.spec.brokerName,
        brokerId: node.spec.brokerId,
        role: node.spec.role,
        ...(node.spec.replication ? { replication: node.spec.replication } : {}),
        ...(node.spec.role === 'replica'
          ? {
              replica: {
                peers: quorumOf(ctx.nodes),
                ...(ctx.topology.controllerMode ? { mode: ctx.topology.controllerMode } : {}),
                ...(node.spec.electionPriority !== undefined
                  ? { electionPriority: node.spec.electionPriority }
                  : {})
              }
            }
          : {}),
        port: rt.port,
        nodeDir: rt.dir,
        discovery: discoveryFor(rt.room, ctx),
        fastBrokerExpiry: ctx.fastBrokerExpiry,
        popConsumption: listNodes(ctx.topology).some((n) => n.kind === 'proxy'),
        timerWheel: needsTimerWheel(ctx.topology)
      })
      writeFileSync(file, renderProperties(props, header))
      // A slave registers with its master's zone: the name server keeps one zone per group.
      return brokerCommand(ctx.jvm(), rt.dir, file, brokerGroupRoom(ctx.topology, node))
    }
    case 'proxy': {
      const file = join(rt.dir, 'rmq-proxy.json')
      const brokers = listNodes(ctx.topology).filter((n) => n.kind === 'broker')
      const cluster =
        (brokers.find((b) => b.room === rt.room) ?? brokers[0])?.spec.cluster ?? 'DefaultCluster'
      const config = proxyConfig({
        host: rt.host,
        cluster,
        proxyName: rt.id,
        grpcPort: rt.port,
        remotingPort: rt.remotingPort ?? rt.port + 1,
        discovery: discoveryFor(rt.room, ctx)
      })
      writeFileSync(file, JSON.stringify(config, null, 2) + '\n')
      return proxyCommand(ctx.jvm(), rt.dir, file, node.spec.zoneMode ? rt.room : undefined)
    }
    case 'management': {
      const file = join(rt.dir, 'management.json')
      writeFileSync(file, JSON.stringify(managementConfig(rt, ctx), null, 2) + '\n')
      const cmd = ctx.management(file)
      return { command: cmd.command, args: cmd.args, env: cmd.env ?? {}, cwd: cmd.cwd ?? rt.dir }
    }
  }
}

function managementConfig(rt: NodeProcess, ctx: NodeCommandContext): ManagementNodeConfig {
  const settings = ctx.topology.settings
  const replicas = ctx.nodes.filter(
    (n) => n.node.kind === 'broker' && n.node.spec.role === 'replica'
  )
  return {
    ...(replicas.length > 0
      ? {
          brokers: replicas.map((n) => ({ id: n.id, room: n.room, address: `${n.host}:${n.port}` }))
        }
      : {}),
    id: rt.id,
    room: rt.room,
    host: rt.host,
    port: rt.port,
    probeIntervalMs: settings.probeIntervalMs,
    probeTimeoutMs: settings.probeTimeoutMs,
    nameServers: ctx.nodes
      .filter((n) => n.kind === 'nameserver')
      .map((n) => ({ id: n.id, room: n.room, address: `${n.host}:${n.port}` })),
    proxies: ctx.nodes.flatMap((n) =>
      n.node.kind === 'proxy'
        ? [
            {
              id: n.id,
              room: n.room,
              address: `${n.host}:${n.port}`,
              ...(n.remotingPort !== undefined
                ? { remotingAddress: `${n.host}:${n.remotingPort}` }
                : {}),
              zoneMode: n.node.spec.zoneMode
            }
          ]
        : []
    )
  }
}
