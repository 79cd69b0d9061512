import type { Topology } from '../../../common/topology'
import { nodesOfKind } from '../../../common/topology'
import type { QueueData } from '../remoting'
import { Perm } from '../remoting'

export interface RoomQueues {
  room: string
  brokers: string[]
  writeQueues: number
}

export type TopicCheck =
  | { ok: true; topic: string; rooms: RoomQueues[]; notes: string[] }
  | {
      ok: false
      topic: string
      missing: boolean
      roomsWithoutQueues: string[]
      rooms: RoomQueues[]
      message: string
      fixes: string[]
      notes: string[]
    }

export interface TopicCheckInput {
  topic: string
  /** The route's queue data; null when the name servers say the topic does not exist. */
  queues: QueueData[] | null
  topology: Topology
  /** How the user lets DR Studio create it, in the words of the surface asking. */
  createHint?: string
}

export const CLI_CREATE_HINT = 'pass --create-topic'
export const APP_CREATE_HINT = 'tick “Let DR Studio create the topic” in Connect to cluster…'

function quoteArg(s: string): string {
  return /^[A-Za-z0-9_.:,/@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

/**
 * Whether a topic can carry the workload on an attached cluster: it must exist and have writable
 * queues in every room that has a master broker. Otherwise the error names the topic, the rooms
 * and both fixes (create it yourself with mqadmin, or let DR Studio create it).
 */
export function checkTopic(input: TopicCheckInput): TopicCheck {
  const { topic, queues, topology } = input
  const masters = nodesOfKind(topology, 'broker').filter((b) => b.spec.role === 'master')
  const roomOf = new Map(masters.map((m) => [m.spec.brokerName, m.room]))
  const roomIds = [...new Set(masters.map((m) => m.room))]
  const notes: string[] = []
  const rooms: RoomQueues[] = roomIds.map((room) => ({ room, brokers: [], writeQueues: 0 }))
  for (const q of queues ?? []) {
    const room = roomOf.get(q.brokerName)
    if (!room) {
      notes.push(
        `broker set ${q.brokerName} serves ${topic} but is not in the topology; discover again to include it`
      )
      continue
    }
    const r = rooms.find((x) => x.room === room)!
    const writable = (q.perm & Perm.WRITE) !== 0 ? q.writeQueueNums : 0
    r.brokers.push(q.brokerName)
    r.writeQueues += writable
  }
  const nameServers = nodesOfKind(topology, 'nameserver')
    .filter((n) => n.spec.host !== undefined && n.spec.port !== undefined)
    .map((n) => `${n.spec.host}:${n.spec.port}`)
    .join(';')
  const ns = quoteArg(nameServers || '<namesrv>')
  const t = quoteArg(topic)
  const n = Math.max(4, ...(queues ?? []).map((q) => q.writeQueueNums))
  const create = `or let DR Studio create it on this cluster: ${input.createHint ?? CLI_CREATE_HINT}`
  if (queues === null || queues.length === 0) {
    const clusters = [...new Set(masters.map((m) => m.spec.cluster))]
    const cmds = clusters.map(
      (c) => `mqadmin updateTopic -n ${ns} -c ${quoteArg(c)} -t ${t} -r ${n} -w ${n}`
    )
    return {
      ok: false,
      topic,
      missing: true,
      roomsWithoutQueues: roomIds,
      rooms,
      message: `topic "${topic}" does not exist on this cluster (name servers ${nameServers || 'none'})`,
      fixes: [
        `create it yourself: ${cmds.join(' ; ') || `mqadmin updateTopic -n ${ns} -c <cluster> -t ${t} -r 4 -w 4`}`,
        create
      ],
      notes
    }
  }
  const empty = rooms.filter((r) => r.writeQueues === 0)
  if (empty.length === 0) return { ok: true, topic, rooms, notes }
  const lacking = masters.filter((m) => empty.some((r) => r.room === m.room))
  const cmds = lacking.map(
    (m) => `mqadmin updateTopic -n ${ns} -b ${m.spec.host}:${m.spec.port} -t ${t} -r ${n} -w ${n}`
  )
  const names = empty.map((r) => r.room)
  return {
    ok: false,
    topic,
    missing: false,
    roomsWithoutQueues: names,
    rooms,
    message:
      `topic "${topic}" has no writable queues in ${names.join(', ')} ` +
      `(brokers ${lacking.map((m) => m.spec.brokerName).join(', ')}), so producers there would cross rooms from the start`,
    fixes: [`create its queues yourself: ${cmds.join(' ; ')}`, create],
    notes
  }
}

/** The check as lines for a terminal or a dialog. */
export function formatTopicCheck(check: TopicCheck): string[] {
  if (check.ok) {
    return [
      `topic "${check.topic}": ${check.rooms.map((r) => `${r.room} ${r.writeQueues} queue(s)`).join(', ')}`,
      ...check.notes
    ]
  }
  return [check.message, ...check.fixes.map((f, i) => `  fix ${i + 1}: ${f}`), ...check.notes]
}
