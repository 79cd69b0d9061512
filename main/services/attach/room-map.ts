import { parse as parseYaml } from 'yaml'
import { idSchema } from '../../../common/topology'
import { AttachInputError, splitHostPort } from './addresses'

/**
 * What a room-map key names: a node's exact `host:port`, an IPv4 subnet, or a bare word that is
 * matched against broker names and node hosts alike.
 */
export type SelectorKind = 'address' | 'subnet' | 'word'

export interface RoomMapEntry {
  selector: string
  kind: SelectorKind
  room: string
  /** Where the entry was written, for messages: `rooms.yaml: "broker-a"`. */
  where: string
}

export interface RoomMap {
  source: string
  entries: RoomMapEntry[]
}

/** A node the map is asked about. */
export interface MapSubject {
  address: string
  brokerName?: string
}

export type MapMatch =
  | { kind: 'none' }
  | { kind: 'room'; room: string; entry: RoomMapEntry }
  | { kind: 'conflict'; entries: RoomMapEntry[] }

const SUBNET = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

function ipv4ToInt(parts: string[]): number | undefined {
  const nums = parts.map(Number)
  if (nums.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return undefined
  return ((nums[0]! << 24) | (nums[1]! << 16) | (nums[2]! << 8) | nums[3]!) >>> 0
}

/** Classifies a map key; throws for a malformed subnet so a typo is not read as a name. */
export function selectorKind(selector: string, where: string): SelectorKind {
  const sub = SUBNET.exec(selector)
  if (sub) {
    const bits = Number(sub[5])
    if (ipv4ToInt(sub.slice(1, 5)) === undefined || bits > 32) {
      throw new AttachInputError(
        `${where}: "${selector}" is not an IPv4 subnet such as 10.1.0.0/16`
      )
    }
    return 'subnet'
  }
  if (selector.includes('/')) {
    throw new AttachInputError(
      `${where}: "${selector}" is not an IPv4 subnet such as 10.1.0.0/16 (IPv6 subnets are not supported; list the addresses)`
    )
  }
  if (splitHostPort(selector)) return 'address'
  return 'word'
}

/** Whether an IPv4 host lies in a subnet. */
export function inSubnet(host: string, subnet: string): boolean {
  const sub = SUBNET.exec(subnet)
  const ip = IPV4.exec(host)
  if (!sub || !ip) return false
  const net = ipv4ToInt(sub.slice(1, 5))
  const addr = ipv4ToInt(ip.slice(1, 5))
  if (net === undefined || addr === undefined) return false
  const bits = Number(sub[5])
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
  return (net & mask) >>> 0 === (addr & mask) >>> 0
}

function checkRoom(room: unknown, where: string): string {
  if (typeof room !== 'string' || !idSchema.safeParse(room).success) {
    throw new AttachInputError(
      `${where}: room ${JSON.stringify(room)} is not a room id; room ids start with a letter and use letters, digits, - and _`
    )
  }
  return room
}

/**
 * Reads a room map (JSON or YAML). Two shapes, mixable: `selector: room` (e.g. `broker-a: room1`,
 * `10.0.0.1:9876: room1`, `10.2.0.0/16: room2`) and `room: [selectors…]`.
 */
export function parseRoomMap(text: string, source: string): RoomMap {
  let doc: unknown
  try {
    doc = parseYaml(text)
  } catch (e) {
    throw new AttachInputError(`${source}: not valid JSON or YAML: ${(e as Error).message}`)
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new AttachInputError(
      `${source}: a room map is an object, e.g. {"broker-a": "room1", "10.0.0.1:9876": "room1"}`
    )
  }
  const entries: RoomMapEntry[] = []
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    const where = `${source}: ${JSON.stringify(key)}`
    if (Array.isArray(value)) {
      const room = checkRoom(key, where)
      for (const sel of value) {
        if (typeof sel !== 'string' || !sel.trim()) {
          throw new AttachInputError(
            `${where}: list entries are broker names, host:port or subnets`
          )
        }
        const selector = sel.trim()
        entries.push({
          selector,
          kind: selectorKind(selector, where),
          room,
          where: `${source}: ${JSON.stringify(selector)}`
        })
      }
    } else if (typeof value === 'string') {
      const selector = key.trim()
      entries.push({
        selector,
        kind: selectorKind(selector, where),
        room: checkRoom(value, where),
        where
      })
    } else {
      throw new AttachInputError(
        `${where}: the value must be a room id (selector: room) or a list of selectors (room: [..])`
      )
    }
  }
  if (entries.length === 0) throw new AttachInputError(`${source}: the room map is empty`)
  return { source, entries }
}

/** How specific a match is; the most specific wins, equal ones must agree. */
function matchLevel(entry: RoomMapEntry, subject: MapSubject): number {
  const hp = splitHostPort(subject.address)
  const host = hp?.host.toLowerCase()
  switch (entry.kind) {
    case 'address':
      return entry.selector.toLowerCase() === subject.address.toLowerCase() ? 400 : 0
    case 'word':
      if (host !== undefined && entry.selector.toLowerCase() === host) return 300
      return subject.brokerName !== undefined && entry.selector === subject.brokerName ? 200 : 0
    case 'subnet':
      return host !== undefined && inSubnet(host, entry.selector)
        ? 100 + Number(entry.selector.split('/')[1])
        : 0
  }
}

/** Looks a node up: exact address, then host, then broker name, then the narrowest subnet. */
export function matchRoomMap(map: RoomMap, subject: MapSubject): MapMatch {
  let best = 0
  let hits: RoomMapEntry[] = []
  for (const entry of map.entries) {
    const level = matchLevel(entry, subject)
    if (level === 0 || level < best) continue
    if (level > best) {
      best = level
      hits = [entry]
    } else hits.push(entry)
  }
  if (hits.length === 0) return { kind: 'none' }
  const rooms = new Set(hits.map((h) => h.room))
  if (rooms.size > 1) return { kind: 'conflict', entries: hits }
  return { kind: 'room', room: hits[0]!.room, entry: hits[0]! }
}
