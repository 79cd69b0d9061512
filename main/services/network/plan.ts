import { configuredLink, linkKey } from '../../../common/topology/network'
import type { LinkSpec, NetworkSettings } from '../../../common/topology/schema'
import {
  DEFAULT_RANGE,
  RANGE_ENV,
  formatCidr,
  hostAt,
  parseRange,
  sliceOf,
  subnetOf
} from './addressing'

/** Everything DR Studio creates starts with this, so a sweep can tell ours from anyone else's. */
export const NAME_PREFIX = 'drs'
/** Rooms per lab: /24s 1..15 of the /20 slice (0 is the host link). */
export const MAX_ROOMS = 15
/** First node address in a room's /24 (.1 is the room's gateway in the core). */
export const FIRST_NODE_HOST = 10
export const MAX_NODES_PER_ROOM = 254 - FIRST_NODE_HOST + 1

/** Interface names inside our namespaces; each namespace is its own name space, so they repeat. */
export const IFACE = {
  /** Core end of the host link. */
  coreHost: 'host',
  /** TUN device of the delay router, in the core. */
  tun: 'drstun',
  bridge: 'br0',
  uplink: 'uplink',
  nodeEth: 'eth0'
} as const
/** Policy-routing table in the core that sends delayed pairs into the TUN. */
export const DELAY_TABLE = 100

export interface RoomPlan {
  id: string
  /** 1-based; the room's /24 is the slice's `index`-th. */
  index: number
  ns: string
  subnet: string
  /** The room's gateway: the core end of its uplink. */
  gateway: string
  /** Core end of the uplink (where room-bound traffic is shaped). */
  coreIf: string
}

export interface NodePlan {
  id: string
  room: string
  ns: string
  ip: string
  /** Room-side end of the node's veth, on the room bridge. */
  roomIf: string
}

export interface PlannedLink {
  key: string
  a: string
  b: string
  configured: LinkSpec
}

/** The whole address and name plan of one lab instance; pure data, derived once. */
export interface NetworkPlan {
  instance: number
  range: string
  slice: string
  host: {
    /** The only interface the lab adds to the host namespace. */
    ifName: string
    addr: string
    coreAddr: string
    linkCidr: string
  }
  core: { ns: string }
  rooms: RoomPlan[]
  nodes: NodePlan[]
  links: PlannedLink[]
}

export interface PlanInput {
  instance: number
  /** Defaults to 198.18.0.0/15; pass `labRange()` to honour `DRSTUDIO_NET_RANGE` (`NetworkLab.plan` does). */
  range?: string
  rooms: readonly (string | { id: string })[]
  nodes: readonly { id: string; room: string }[]
  network?: NetworkSettings
}

/** Namespace names of instance `n`: `drs-<n>-core`, `drs-<n>-r-<room>`, `drs-<n>-n-<node>`. */
export function namespacePrefix(instance: number): string {
  return `${NAME_PREFIX}-${instance}-`
}

export function hostLinkName(instance: number): string {
  return `${NAME_PREFIX}${instance}-host`
}

/**
 * Addresses and names for a lab: instance `n` owns the n-th /20 of the range; its first /24 holds
 * the host link (.1 host, .2 core), room i owns /24 number i (gateway .1, nodes from .10).
 */
export function planNetwork(input: PlanInput): NetworkPlan {
  const rangeText = input.range ?? DEFAULT_RANGE
  const range = parseRange(rangeText, input.range === undefined ? 'the default range' : RANGE_ENV)
  if (!range.ok) throw new Error(range.error)
  if (!Number.isInteger(input.instance) || input.instance < 0 || input.instance >= range.slices) {
    throw new Error(
      `lab instance ${input.instance} is outside ${rangeText}, which holds instances 0..${range.slices - 1}; ` +
        `pick a free instance or set ${RANGE_ENV} to a larger private range`
    )
  }
  const roomIds = input.rooms.map((r) => (typeof r === 'string' ? r : r.id))
  if (roomIds.length > MAX_ROOMS) {
    throw new Error(
      `the network lab holds at most ${MAX_ROOMS} rooms; this topology has ${roomIds.length}`
    )
  }
  const seen = new Set<string>()
  for (const id of [...roomIds, ...input.nodes.map((n) => n.id)]) {
    if (seen.has(id)) throw new Error(`id "${id}" is used twice; rooms and nodes need unique ids`)
    seen.add(id)
  }

  const slice = sliceOf(range.range, input.instance)
  const infra = subnetOf(slice, 0)
  const prefix = namespacePrefix(input.instance)
  const rooms: RoomPlan[] = roomIds.map((id, i) => {
    const subnet = subnetOf(slice, i + 1)
    return {
      id,
      index: i + 1,
      ns: `${prefix}r-${id}`,
      subnet: formatCidr(subnet),
      gateway: hostAt(subnet, 1),
      coreIf: `r${i + 1}`
    }
  })

  const perRoom = new Map<string, number>()
  const nodes: NodePlan[] = input.nodes.map((n) => {
    const room = rooms.find((r) => r.id === n.room)
    if (!room) {
      throw new Error(
        `node "${n.id}" is in room "${n.room}", which is not a room of this lab (${roomIds.join(', ')})`
      )
    }
    const k = (perRoom.get(room.id) ?? 0) + 1
    perRoom.set(room.id, k)
    if (k > MAX_NODES_PER_ROOM) {
      throw new Error(
        `room "${room.id}" has more than ${MAX_NODES_PER_ROOM} nodes; the lab gives each room one /24`
      )
    }
    return {
      id: n.id,
      room: room.id,
      ns: `${prefix}n-${n.id}`,
      ip: hostAt(subnetOf(slice, room.index), FIRST_NODE_HOST + k - 1),
      roomIf: `n${k}`
    }
  })

  const links: PlannedLink[] = []
  for (let i = 0; i < roomIds.length; i++) {
    for (let j = i + 1; j < roomIds.length; j++) {
      const a = roomIds[i]!
      const b = roomIds[j]!
      links.push({
        key: linkKey(a, b, roomIds),
        a,
        b,
        configured: configuredLink(input.network, a, b)
      })
    }
  }

  return {
    instance: input.instance,
    range: formatCidr(range.range),
    slice: formatCidr(slice),
    host: {
      ifName: hostLinkName(input.instance),
      addr: hostAt(infra, 1),
      coreAddr: hostAt(infra, 2),
      linkCidr: `${hostAt(infra, 0)}/30`
    },
    core: { ns: `${prefix}core` },
    rooms,
    nodes,
    links
  }
}

/** The argv steps that build a planned lab, in order; each is one `ip` batch (few processes). */
export interface ExecStep {
  argv: string[]
  input?: string
  /** What the step builds, for the error message when it fails. */
  what: string
}

export function upSteps(plan: NetworkPlan): ExecStep[] {
  const core = plan.core.ns
  const h = plan.host
  const all = [core, ...plan.rooms.map((r) => r.ns), ...plan.nodes.map((n) => n.ns)]
  const steps: ExecStep[] = [
    {
      what: 'the namespaces',
      argv: ['ip', '-batch', '-'],
      input: lines(all.map((ns) => `netns add ${ns}`))
    },
    {
      what: 'forwarding in the core (and nowhere else)',
      argv: [
        'ip',
        'netns',
        'exec',
        core,
        'sysctl',
        '-q',
        '-w',
        'net.ipv4.ip_forward=1',
        'net.ipv4.conf.all.rp_filter=0',
        'net.ipv4.conf.default.rp_filter=0'
      ]
    },
    {
      what: 'the host link',
      argv: [
        'ip',
        'link',
        'add',
        h.ifName,
        'type',
        'veth',
        'peer',
        'name',
        IFACE.coreHost,
        'netns',
        core
      ]
    }
  ]
  for (const room of plan.rooms) {
    const cmds = [
      'link set lo up',
      `link add ${IFACE.bridge} type bridge`,
      `link set ${IFACE.bridge} up`,
      `link add ${IFACE.uplink} type veth peer name ${room.coreIf} netns ${core}`,
      `link set ${IFACE.uplink} master ${IFACE.bridge}`,
      `link set ${IFACE.uplink} up`
    ]
    for (const node of plan.nodes.filter((n) => n.room === room.id)) {
      cmds.push(
        `link add ${node.roomIf} type veth peer name ${IFACE.nodeEth} netns ${node.ns}`,
        `link set ${node.roomIf} master ${IFACE.bridge}`,
        `link set ${node.roomIf} up`
      )
    }
    steps.push({
      what: `room ${room.id}`,
      argv: ['ip', '-n', room.ns, '-batch', '-'],
      input: lines(cmds)
    })
  }
  const prefix = (cidr: string): string => cidr.split('/')[1]!
  steps.push({
    what: 'the core router',
    argv: ['ip', '-n', core, '-batch', '-'],
    input: lines([
      'link set lo up',
      `addr add ${h.coreAddr}/${prefix(h.linkCidr)} dev ${IFACE.coreHost}`,
      `link set ${IFACE.coreHost} up`,
      ...plan.rooms.flatMap((r) => [
        `addr add ${r.gateway}/${prefix(r.subnet)} dev ${r.coreIf}`,
        `link set ${r.coreIf} up`
      ])
    ])
  })
  for (const node of plan.nodes) {
    const room = plan.rooms.find((r) => r.id === node.room)!
    steps.push({
      what: `node ${node.id}`,
      argv: ['ip', '-n', node.ns, '-batch', '-'],
      input: lines([
        'link set lo up',
        `addr add ${node.ip}/${prefix(room.subnet)} dev ${IFACE.nodeEth}`,
        `link set ${IFACE.nodeEth} up`,
        // Only the lab's slice is routable: nothing a node sends can leave the machine.
        `route add ${plan.slice} via ${room.gateway}`
      ])
    })
  }
  steps.push({
    what: 'the host side (one address, one route for the slice)',
    argv: ['ip', '-batch', '-'],
    input: lines([
      `addr add ${h.addr}/${prefix(h.linkCidr)} dev ${h.ifName}`,
      `link set ${h.ifName} up`,
      `route add ${plan.slice} via ${h.coreAddr} dev ${h.ifName}`
    ])
  })
  return steps
}

function lines(cmds: readonly string[]): string {
  return cmds.join('\n') + '\n'
}
