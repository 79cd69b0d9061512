import { idSchema } from '../../../common/topology'
import { AttachInputError, splitHostPort } from './addresses'
import type { DiscoveredBrokerSet } from './cluster-merge'
import type { MapMatch, RoomMap } from './room-map'
import { matchRoomMap } from './room-map'

export type RoomsMode = 'zone' | 'map' | 'regex'

/** How the user asked for rooms; absent `mode` means zone when every broker has one. */
export interface PlacementRules {
  mode?: RoomsMode
  map?: RoomMap
  /** `--rooms-by-name`: first capture group of a broker name is its room. */
  brokerPattern?: string
  /** `--namesrv-rooms-by-host`: first capture group of a name server's host is its room. */
  namesrvPattern?: string
}

/** Words the fixes use for each rule, so the CLI and the dialog both read naturally. */
export interface FixWords {
  map: string
  brokerPattern: string
  namesrvPattern: string
}

export const CLI_WORDS: FixWords = {
  map: 'the rooms map (--rooms-map FILE)',
  brokerPattern: '--rooms-by-name REGEX',
  namesrvPattern: '--namesrv-rooms-by-host REGEX'
}

export const APP_WORDS: FixWords = {
  map: 'the Room map',
  brokerPattern: 'the Broker-name pattern',
  namesrvPattern: 'the Name-server host pattern'
}

export interface PlacedNode {
  room: string
  /** Which rule placed it, in words: `zone room1`, `rooms.yaml: "broker-a"`. */
  by: string
}

/** A node no rule places; `fix` is the exact thing to add. */
export interface Unplaced {
  kind: 'broker' | 'nameserver'
  subject: string
  address: string
  reason: string
  fix: string
}

export interface Placement {
  mode: RoomsMode
  /** Keyed by node address. */
  brokers: Record<string, PlacedNode>
  nameServers: Record<string, PlacedNode>
  unplaced: Unplaced[]
  notes: string[]
  /** Room ids in topology order, with the name the room came from (a zone may not be a valid id). */
  rooms: { id: string; name: string }[]
}

/** Compiles a user pattern; it must have a capture group, since that group is the room. */
export function compilePattern(pattern: string, flag: string): RegExp {
  let re: RegExp
  try {
    re = new RegExp(pattern)
  } catch (e) {
    throw new AttachInputError(
      `${flag}: /${pattern}/ is not a regular expression: ${(e as Error).message}`
    )
  }
  const groups = new RegExp(`${pattern}|`).exec('')!.length - 1
  if (groups < 1) {
    throw new AttachInputError(
      `${flag}: /${pattern}/ has no capture group; the first group is the room, e.g. ^(room\\d+)-`
    )
  }
  return re
}

/** The mode to use: what the user said, else a pattern or map they gave, else zone. */
export function resolveMode(rules: PlacementRules): RoomsMode {
  if (rules.mode) return rules.mode
  if (rules.brokerPattern !== undefined) return 'regex'
  if (rules.map) return 'map'
  return 'zone'
}

/** Turns a zone or pattern capture into a room id, deterministically (ids are shell- and path-safe). */
export class RoomNamer {
  private readonly byName = new Map<string, string>()
  private readonly used = new Set<string>()
  private readonly names = new Map<string, string>()

  id(name: string): string {
    const known = this.byName.get(name)
    if (known) return known
    let base = idSchema.safeParse(name).success
      ? name
      : `room-${name.replace(/[^A-Za-z0-9_-]+/g, '-')}`.slice(0, 58)
    if (!idSchema.safeParse(base).success) base = 'room'
    let id = base
    for (let i = 2; this.used.has(id); i++) id = `${base}-${i}`
    this.used.add(id)
    this.byName.set(name, id)
    this.names.set(id, name)
    return id
  }

  /** The zone or capture a room id was made from; the id itself for rooms a map named. */
  nameOf(id: string): string {
    return this.names.get(id) ?? id
  }
}

function describeMatch(m: Extract<MapMatch, { kind: 'conflict' }>): string {
  return m.entries.map((e) => `${e.where} → ${e.room}`).join(', ')
}

interface BrokerSubject {
  set: DiscoveredBrokerSet
  brokerId: number
  address: string
}

function placeBroker(
  b: BrokerSubject,
  mode: RoomsMode,
  rules: PlacementRules,
  pattern: RegExp | undefined,
  namer: RoomNamer,
  words: FixWords,
  notes: string[]
): PlacedNode | Unplaced {
  const subject = `${b.set.brokerName} brokerId ${b.brokerId}`
  const mapFix = `add "${b.set.brokerName}: <room>" (or "${b.address}: <room>" for this node only) to ${words.map}`
  const unplaced = (reason: string, fix: string): Unplaced => ({
    kind: 'broker',
    subject,
    address: b.address,
    reason,
    fix
  })
  const m = rules.map
    ? matchRoomMap(rules.map, { address: b.address, brokerName: b.set.brokerName })
    : { kind: 'none' as const }
  if (m.kind === 'conflict') {
    return unplaced(
      `the room map disagrees: ${describeMatch(m)}`,
      `keep one of these entries in ${words.map}`
    )
  }
  if (m.kind === 'room') {
    if (mode === 'zone' && b.set.zone !== undefined && namer.id(b.set.zone) !== m.room) {
      notes.push(`${m.entry.where} puts ${subject} in ${m.room} although its zone is ${b.set.zone}`)
    }
    return { room: m.room, by: m.entry.where }
  }
  if (mode === 'map') return unplaced(`${b.set.brokerName} is not in the room map`, mapFix)
  if (mode === 'regex') {
    const captured = pattern!.exec(b.set.brokerName)?.[1]
    if (!captured) {
      return unplaced(
        `broker name ${b.set.brokerName} does not match /${pattern!.source}/ (or its first group is empty)`,
        `change ${words.brokerPattern} so its first group captures the room, or ${mapFix}`
      )
    }
    return { room: namer.id(captured), by: `pattern /${pattern!.source}/ → ${captured}` }
  }
  if (b.set.zoneConflict) {
    return unplaced('name servers report different zones for its broker set', mapFix)
  }
  if (b.set.zone === undefined) {
    return unplaced(
      `${b.set.brokerName} has no zone (it was started without ROCKETMQ_ZONE)`,
      `restart it with ROCKETMQ_ZONE=<room>, or ${mapFix}, or use ${words.brokerPattern}`
    )
  }
  return { room: namer.id(b.set.zone), by: `zone ${b.set.zone}` }
}

function placeNameServer(
  address: string,
  rules: PlacementRules,
  pattern: RegExp | undefined,
  namer: RoomNamer,
  hostRooms: Map<string, Set<string>>,
  words: FixWords
): PlacedNode | Unplaced {
  const host = splitHostPort(address)?.host ?? address
  const unplaced = (reason: string): Unplaced => ({
    kind: 'nameserver',
    subject: `name server ${address}`,
    address,
    reason,
    fix: `add "${address}: <room>" to ${words.map}, or use ${words.namesrvPattern}`
  })
  const m = rules.map ? matchRoomMap(rules.map, { address }) : { kind: 'none' as const }
  if (m.kind === 'conflict') return unplaced(`the room map disagrees: ${describeMatch(m)}`)
  if (m.kind === 'room') return { room: m.room, by: m.entry.where }
  if (pattern) {
    const captured = pattern.exec(host)?.[1]
    if (captured)
      return { room: namer.id(captured), by: `host pattern /${pattern.source}/ → ${captured}` }
  }
  // A machine is in one room: brokers placed on the same host, all in one room, place it too.
  const rooms = hostRooms.get(host.toLowerCase())
  if (rooms?.size === 1) {
    const room = [...rooms][0]!
    return { room, by: `same host as the brokers of ${room}` }
  }
  const why =
    rooms && rooms.size > 1
      ? `its host ${host} also runs brokers of ${[...rooms].sort().join(' and ')}`
      : 'name servers carry no zone and no rule names this one'
  return unplaced(pattern ? `${why}; /${pattern.source}/ does not match ${host}` : why)
}

function isUnplaced(p: PlacedNode | Unplaced): p is Unplaced {
  return 'reason' in p
}

function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true })
}

/**
 * Puts every discovered broker and name server in a room by the user's rules. Nothing is
 * guessed: a node no rule places is returned in `unplaced` with the entry that would place it.
 */
export function placeRooms(
  input: { brokerSets: DiscoveredBrokerSet[]; nameServers: string[] },
  rules: PlacementRules,
  words: FixWords = CLI_WORDS
): Placement {
  const mode = resolveMode(rules)
  if (mode === 'map' && !rules.map) {
    throw new AttachInputError(`rooms by map needs a map: pass ${words.map}`)
  }
  if (mode === 'regex' && rules.brokerPattern === undefined) {
    throw new AttachInputError(`rooms by broker name needs ${words.brokerPattern}`)
  }
  const brokerRe =
    mode === 'regex' ? compilePattern(rules.brokerPattern!, words.brokerPattern) : undefined
  const nsRe =
    rules.namesrvPattern !== undefined
      ? compilePattern(rules.namesrvPattern, words.namesrvPattern)
      : undefined
  const namer = new RoomNamer()
  const notes: string[] = []
  const unplaced: Unplaced[] = []
  const brokers: Record<string, PlacedNode> = {}
  const hostRooms = new Map<string, Set<string>>()
  const roomIds = new Set<string>()
  for (const set of input.brokerSets) {
    for (const node of set.nodes) {
      const placed = placeBroker({ set, ...node }, mode, rules, brokerRe, namer, words, notes)
      if (isUnplaced(placed)) {
        unplaced.push(placed)
        continue
      }
      brokers[node.address] = placed
      roomIds.add(placed.room)
      const host = splitHostPort(node.address)?.host.toLowerCase() ?? node.address
      let rooms = hostRooms.get(host)
      if (!rooms) hostRooms.set(host, (rooms = new Set()))
      rooms.add(placed.room)
    }
  }
  const nameServers: Record<string, PlacedNode> = {}
  for (const address of input.nameServers) {
    const placed = placeNameServer(address, rules, nsRe, namer, hostRooms, words)
    if (isUnplaced(placed)) unplaced.push(placed)
    else {
      nameServers[address] = placed
      roomIds.add(placed.room)
    }
  }
  const rooms = [...roomIds].sort(naturalCompare).map((id) => ({ id, name: namer.nameOf(id) }))
  return { mode, brokers, nameServers, unplaced, notes, rooms }
}
