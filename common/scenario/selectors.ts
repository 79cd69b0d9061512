/** Anything a timeline step can target: a server node of the topology or an in-process client. */
export interface TargetNode {
  id: string
  kind: 'nameserver' | 'broker' | 'management' | 'proxy' | 'controller' | 'producer' | 'consumer'
  room: string
  /** Brokers only: master or slave, or a controller-mode replica (whose role changes at run time). */
  role?: 'master' | 'slave' | 'replica'
}

export type SelectorResult = { ok: true; nodes: TargetNode[] } | { ok: false; error: string }

type Kind = TargetNode['kind']

const SERVER_KINDS: readonly Kind[] = ['nameserver', 'broker', 'management', 'proxy', 'controller']

/** Words people write for each kind, singular and plural. */
const KIND_WORDS: Record<string, { kinds: readonly Kind[]; role?: TargetNode['role'] }> = {
  broker: { kinds: ['broker'] },
  brokers: { kinds: ['broker'] },
  master: { kinds: ['broker'], role: 'master' },
  masters: { kinds: ['broker'], role: 'master' },
  slave: { kinds: ['broker'], role: 'slave' },
  slaves: { kinds: ['broker'], role: 'slave' },
  replica: { kinds: ['broker'], role: 'replica' },
  replicas: { kinds: ['broker'], role: 'replica' },
  controller: { kinds: ['controller'] },
  controllers: { kinds: ['controller'] },
  nameserver: { kinds: ['nameserver'] },
  nameservers: { kinds: ['nameserver'] },
  'name server': { kinds: ['nameserver'] },
  'name servers': { kinds: ['nameserver'] },
  namesrv: { kinds: ['nameserver'] },
  namesrvs: { kinds: ['nameserver'] },
  management: { kinds: ['management'] },
  'management node': { kinds: ['management'] },
  'management nodes': { kinds: ['management'] },
  proxy: { kinds: ['proxy'] },
  proxies: { kinds: ['proxy'] },
  producer: { kinds: ['producer'] },
  producers: { kinds: ['producer'] },
  consumer: { kinds: ['consumer'] },
  consumers: { kinds: ['consumer'] },
  clients: { kinds: ['producer', 'consumer'] },
  servers: { kinds: SERVER_KINDS },
  everything: { kinds: SERVER_KINDS }
}

const PATTERN =
  /^(?:all\s+)?(?:the\s+)?([a-z ]+?)\s+(?:of|in)\s+(?:room\s+)?([A-Za-z][A-Za-z0-9_-]*)$/i
const ALL_ROOMS = /^(?:all\s+)?(?:the\s+)?([a-z ]+?)(?:\s+(?:of|in)\s+all\s+rooms)?$/i

/**
 * Resolves one selector: a node id, "all brokers of room1", "nameservers of room1",
 * "consumers in room2", "masters of room1", "servers of room1" (a whole room's servers),
 * or "all brokers" (every room). Unknown words name the accepted forms in the error.
 */
export function resolveSelector(selector: string, nodes: readonly TargetNode[]): SelectorResult {
  const text = selector.trim()
  const byId = nodes.find((n) => n.id === text)
  if (byId) return { ok: true, nodes: [byId] }

  const rooms = new Set(nodes.map((n) => n.room))
  let word: string | undefined
  let room: string | undefined
  const m = PATTERN.exec(text)
  if (m && m[2]!.toLowerCase() !== 'all') {
    word = m[1]!.toLowerCase().replace(/\s+/g, ' ')
    room = m[2]!
  } else {
    const all = ALL_ROOMS.exec(text)
    if (all) word = all[1]!.toLowerCase().replace(/\s+/g, ' ')
  }
  const kind = word === undefined ? undefined : KIND_WORDS[word]
  if (!kind) {
    return {
      ok: false,
      error:
        `"${selector}" is neither a node id nor a selector; write a node id, ` +
        `"all brokers of room1", "nameservers of room1", "consumers of room1", ` +
        `"management of room1" or "servers of room1"`
    }
  }
  if (room !== undefined && !rooms.has(room)) {
    return {
      ok: false,
      error: `"${selector}" names room "${room}", which is not in the topology (rooms: ${[...rooms].join(', ')})`
    }
  }
  const picked = nodes.filter(
    (n) =>
      kind.kinds.includes(n.kind) &&
      (room === undefined || n.room === room) &&
      (kind.role === undefined || n.role === kind.role)
  )
  if (picked.length === 0) {
    return { ok: false, error: `"${selector}" matches no node` }
  }
  return { ok: true, nodes: picked }
}

/** Resolves a target (one selector or several) to distinct nodes, in the order first matched. */
export function resolveTarget(
  target: string | readonly string[],
  nodes: readonly TargetNode[]
): SelectorResult {
  const list = typeof target === 'string' ? [target] : target
  const out = new Map<string, TargetNode>()
  for (const s of list) {
    const r = resolveSelector(s, nodes)
    if (!r.ok) return r
    for (const n of r.nodes) out.set(n.id, n)
  }
  return { ok: true, nodes: [...out.values()] }
}

/** A node named by the role the controllers give it, which only the run can resolve. */
export type RoleSelector = { role: 'master'; group: string } | { role: 'leader' }

const MASTER_OF = /^(?:the\s+)?(?:current\s+)?master\s+of\s+group\s+(\S+)$/i
const LEADER = /^(?:the\s+)?(?:leader\s+controller|controller\s+leader)$/i

/**
 * "master of group broker-a" (the replica the controllers made master when the step runs) and
 * "leader controller"; undefined for every other selector.
 */
export function parseRoleSelector(selector: string): RoleSelector | undefined {
  const text = selector.trim()
  const m = MASTER_OF.exec(text)
  if (m) return { role: 'master', group: m[1]! }
  return LEADER.test(text) ? { role: 'leader' } : undefined
}
