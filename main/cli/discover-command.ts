import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { serializeTopology } from '../../common/topology'
import type { ConnectResult, DiscoveryPort, RoomsMode } from '../services/attach'
import {
  AttachInputError,
  connectToCluster,
  formatTopicCheck,
  parseNamesrvList,
  remotingDiscoveryPort
} from '../services/attach'
import { RemotingRpc } from '../services/remoting'

type Out = { write(s: string): unknown }

export interface DiscoverOptions {
  namesrv?: string
  addressServer?: string
  rooms?: string
  roomsMap?: string
  roomsByName?: string
  namesrvRoomsByHost?: string
  topic?: string
  clients?: boolean
  createTopic?: boolean
  name?: string
  out: string
  force?: boolean
  json?: boolean
  timeout?: number
}

const MODES: Record<string, RoomsMode> = { zone: 'zone', map: 'map', name: 'regex', regex: 'regex' }

function modeOf(value: string | undefined): RoomsMode | undefined {
  if (value === undefined) return undefined
  const mode = MODES[value]
  if (!mode) throw new AttachInputError(`--rooms must be zone, map or name (got "${value}")`)
  return mode
}

function readMap(path: string | undefined): { text: string; source: string } | undefined {
  if (path === undefined) return undefined
  try {
    return { text: readFileSync(path, 'utf8'), source: path }
  } catch (e) {
    throw new AttachInputError(`--rooms-map: cannot read ${path}: ${(e as Error).message}`)
  }
}

function summaryRows(
  result: ConnectResult
): { room: string; nameServers: string; brokers: string }[] {
  return (result.topology?.rooms ?? []).map((r) => ({
    room: r.name && r.name !== r.id ? `${r.id} (${r.name})` : r.id,
    nameServers: r.nameServers.map((n) => `${n.id} ${n.host}:${n.port}`).join(', ') || '-',
    brokers:
      r.brokers
        .map((b) => `${b.id} ${b.role === 'master' ? 'M' : `S${b.brokerId}`} ${b.host}:${b.port}`)
        .join(', ') || '-'
  }))
}

function printProblems(result: ConnectResult, err: Out): void {
  err.write(
    `drstudio discover: ${result.problems.length} problem(s); nothing was written. Nothing is guessed: fix these and run it again.\n`
  )
  for (const p of result.problems) err.write(`  - ${p.subject}: ${p.message}\n    fix: ${p.fix}\n`)
}

/**
 * `drstudio discover`: reads a running cluster from its name servers into a topology of attached
 * nodes. Progress goes to stderr, the summary to stdout, the topology to --out.
 */
export async function runDiscoverCommand(
  opts: DiscoverOptions,
  io: { stdout?: Out; stderr?: Out; port?: DiscoveryPort } = {}
): Promise<number> {
  const out = io.stdout ?? process.stdout
  const err = io.stderr ?? process.stderr
  const target = resolve(opts.out)
  if (existsSync(target) && !opts.force) {
    throw new AttachInputError(
      `${target} already exists; pass --force to overwrite it, or choose another --out`
    )
  }
  if (opts.clients && !opts.topic) {
    throw new AttachInputError('--clients needs --topic: the topic the producers and consumers use')
  }
  const namesrv = parseNamesrvList(opts.namesrv ?? '')
  if (namesrv.length === 0 && !opts.addressServer) {
    throw new AttachInputError('pass --namesrv "host:port;host:port" or --address-server URL')
  }
  const mode = modeOf(opts.rooms)
  const roomMap = readMap(opts.roomsMap)
  const rpc = io.port ? undefined : new RemotingRpc()
  let result: ConnectResult
  try {
    result = await connectToCluster(
      {
        namesrv,
        ...(opts.addressServer ? { addressServer: opts.addressServer } : {}),
        ...(mode ? { mode } : {}),
        ...(roomMap ? { roomMap } : {}),
        ...(opts.roomsByName !== undefined ? { brokerPattern: opts.roomsByName } : {}),
        ...(opts.namesrvRoomsByHost !== undefined
          ? { namesrvPattern: opts.namesrvRoomsByHost }
          : {}),
        ...(opts.topic ? { topic: opts.topic } : {}),
        clients: opts.clients ?? false,
        createTopic: opts.createTopic ?? false,
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout } : {})
      },
      io.port ?? remotingDiscoveryPort(rpc!),
      (p) => {
        const count = p.total !== undefined ? ` (${p.done ?? 0}/${p.total})` : ''
        err.write(`drstudio discover: ${p.message}${count}\n`)
      }
    )
  } finally {
    rpc?.close()
  }
  if (!result.ok || !result.topology) {
    if (opts.json) out.write(JSON.stringify(jsonSummary(result, null), null, 2) + '\n')
    printProblems(result, err)
    return 1
  }
  mkdirSync(dirname(target), { recursive: true })
  writeFileSync(target, serializeTopology(result.topology), { flag: opts.force ? 'w' : 'wx' })
  for (const w of result.warnings) err.write(`drstudio discover: warning: ${w}\n`)
  if (result.topic) {
    const lines = formatTopicCheck(result.topic)
    const label = result.topic.ok ? 'topic check' : 'topic check failed'
    for (const l of lines) err.write(`drstudio discover: ${label}: ${l}\n`)
  }
  if (opts.json) {
    out.write(JSON.stringify(jsonSummary(result, target), null, 2) + '\n')
    return 0
  }
  const rows = summaryRows(result)
  const width = Math.max(4, ...rows.map((r) => r.room.length))
  out.write(`${'room'.padEnd(width)}  name servers / brokers (M = master, S<n> = slave)\n`)
  for (const r of rows)
    out.write(`${r.room.padEnd(width)}  ${r.nameServers}\n${' '.repeat(width)}  ${r.brokers}\n`)
  const topics = result.topology.topics.length
  out.write(
    `wrote ${target}: ${rows.length} room(s), ${topics} topic(s), every node attached (DR Studio will not start or stop them)\n`
  )
  return 0
}

function jsonSummary(result: ConnectResult, written: string | null): unknown {
  return {
    ok: result.ok,
    out: written,
    mode: result.placement.mode,
    nameServers: result.discovery.nameServers,
    rooms: result.placement.rooms,
    problems: result.problems,
    warnings: result.warnings,
    topic: result.topic
  }
}
