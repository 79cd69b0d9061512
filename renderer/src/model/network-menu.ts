import type { NetworkStatusPayload } from '../../../common/contract'
import type { BlockMode, Direction, NetworkFaultInput } from '../../../common/scenario/schema'

/** What decides whether network faults can be applied from the canvas now. */
export interface NetworkGate {
  running: boolean
  replaying: boolean
  status: NetworkStatusPayload | null
}

/** Why no network fault can be applied now (the greyed-out items' description), or null. */
export function faultsBlockedBy(g: NetworkGate): string | null {
  if (g.replaying) return 'a replay shows a recorded run; close the replay to act on the sandbox'
  if (!g.running) return 'start the sandbox first: network faults act on its running rooms'
  if (!g.status) return 'waiting for the sandbox to report its network'
  return g.status.faultsDisabled
}

/**
 * Latency needs the delay router or netem; when neither works the sandbox still runs rooms as
 * namespaces and says so in its notice ("latency faults disabled: missing …; fix: …").
 */
export function latencyBlockedBy(g: NetworkGate): string | null {
  const blocked = faultsBlockedBy(g)
  if (blocked) return blocked
  const notice = g.status?.notice
  return notice && /^latency faults disabled/.test(notice) ? notice : null
}

export type NetworkDialogKind = 'cut' | 'delay' | 'loss' | 'bandwidth'

/** A dialog to open: the fault kind, its target, and the peer when the menu already knows it. */
export interface NetworkDialogRequest {
  kind: NetworkDialogKind
  target: string
  /** Fixed by the menu (a link's other room); null lets the user choose. */
  peer: string | null
  direction: Direction
}

export type NetworkIcon =
  'isolate' | 'cut' | 'one-way' | 'delay' | 'loss' | 'bandwidth' | 'heal' | 'drop' | 'reject'

interface EntryBase {
  label: string
  icon: NetworkIcon
  /** Why the entry is greyed out; null when it can be chosen. */
  disabled: string | null
  hint?: string
  /** What the entry does beyond its label (said after it; greyed-out entries say why instead). */
  description?: string
  separated?: boolean
}

/** One item of a network menu, turned into a menu item by the component. */
export type NetworkEntry =
  | (EntryBase & { type: 'mode'; mode: BlockMode; checked: boolean; description: string })
  | (EntryBase & { type: 'apply'; faults: NetworkFaultInput[] })
  | (EntryBase & { type: 'dialog'; dialog: NetworkDialogRequest })

/** What drop and reject do, as the mode items say it. */
export const BLOCK_MODE_TEXT: Record<BlockMode, { label: string; description: string }> = {
  drop: {
    label: 'Drop packets',
    description: 'cut links drop packets: clients wait out their timeouts, as with a dead link'
  },
  reject: {
    label: 'Reject packets',
    description: 'cut links answer with a reset: clients fail fast, as with a firewall'
  }
}

function modeNote(mode: BlockMode): string {
  return mode === 'drop' ? 'drop: clients wait out their timeouts' : 'reject: clients fail fast'
}

function modeEntries(mode: BlockMode): NetworkEntry[] {
  return (['drop', 'reject'] as const).map((m) => ({
    type: 'mode',
    mode: m,
    checked: m === mode,
    label: BLOCK_MODE_TEXT[m].label,
    description: BLOCK_MODE_TEXT[m].description,
    icon: m,
    disabled: null
  }))
}

type ActiveFaults = NetworkStatusPayload['faults']

function endsOf(f: ActiveFaults[number]['fault']): string[] {
  return [f.target, f.peer].filter((x): x is string => typeof x === 'string')
}

/** Active faults that name `id` as target or peer (what "Heal id" removes). */
export function faultsNaming(faults: ActiveFaults, id: string): ActiveFaults {
  return faults.filter((f) => endsOf(f.fault).includes(id))
}

/** Active faults between exactly a and b (what "Heal a ~ b" removes; isolates are not among them). */
export function faultsBetween(faults: ActiveFaults, a: string, b: string): ActiveFaults {
  return faults.filter((f) => {
    if (f.fault.action === 'isolate') return false
    const ends = endsOf(f.fault)
    return ends.includes(a) && ends.includes(b)
  })
}

function isolated(faults: ActiveFaults, id: string): boolean {
  return faults.some((f) => f.fault.action === 'isolate' && f.fault.target === id)
}

/** Slow…, Lossy… and Bandwidth…: the dialogs that shape a link (room and link menus alike). */
function shapeEntries(
  dialog: (kind: NetworkDialogKind) => NetworkDialogRequest,
  blocked: string | null,
  slow: string | null
): NetworkEntry[] {
  return [
    {
      type: 'dialog',
      label: 'Slow…',
      icon: 'delay',
      separated: true,
      disabled: slow,
      dialog: dialog('delay')
    },
    { type: 'dialog', label: 'Lossy…', icon: 'loss', disabled: blocked, dialog: dialog('loss') },
    {
      type: 'dialog',
      label: 'Bandwidth…',
      icon: 'bandwidth',
      disabled: blocked,
      dialog: dialog('bandwidth')
    }
  ]
}

/** Right-click on a room: isolate it, cut or shape its links to one or every other room, heal it. */
export function roomMenuEntries(
  room: string,
  rooms: readonly string[],
  gate: NetworkGate,
  mode: BlockMode
): NetworkEntry[] {
  const alone = rooms.length < 2 ? `${room} is the only room: there is no link to act on` : null
  const blocked = faultsBlockedBy(gate) ?? alone
  const slow = latencyBlockedBy(gate) ?? alone
  const faults = gate.status?.faults ?? []
  const dialog = (kind: NetworkDialogKind, direction: Direction = 'both') => ({
    kind,
    target: room,
    peer: rooms.length === 2 ? rooms.find((r) => r !== room)! : null,
    direction
  })
  return [
    ...modeEntries(mode),
    {
      type: 'apply',
      label: `Isolate ${room}`,
      icon: 'isolate',
      hint: mode,
      description: modeNote(mode),
      separated: true,
      disabled: blocked,
      faults: [{ action: 'isolate', target: room, mode }]
    },
    { type: 'dialog', label: 'Cut…', icon: 'cut', disabled: blocked, dialog: dialog('cut') },
    {
      type: 'dialog',
      label: 'Cut one way…',
      icon: 'one-way',
      disabled: blocked,
      dialog: dialog('cut', 'to')
    },
    ...shapeEntries(dialog, blocked, slow),
    {
      type: 'apply',
      label: `Heal ${room}`,
      icon: 'heal',
      separated: true,
      disabled:
        faultsBlockedBy(gate) ??
        (faultsNaming(faults, room).length ? null : `no network fault names ${room}`),
      faults: [{ action: 'heal', target: room }]
    }
  ]
}

/** Right-click on the link between two rooms: isolate either end, cut it (or one way), shape it, heal it. */
export function linkMenuEntries(
  a: string,
  b: string,
  gate: NetworkGate,
  mode: BlockMode
): NetworkEntry[] {
  const blocked = faultsBlockedBy(gate)
  const slow = latencyBlockedBy(gate)
  const faults = gate.status?.faults ?? []
  const cut = (direction: Direction): NetworkFaultInput => ({
    action: 'partition',
    target: a,
    peer: b,
    direction,
    mode
  })
  const dialog = (kind: NetworkDialogKind): NetworkDialogRequest => ({
    kind,
    target: a,
    peer: b,
    direction: 'both'
  })
  const entries: NetworkEntry[] = [
    ...modeEntries(mode),
    ...[a, b].map<NetworkEntry>((room, i) => ({
      type: 'apply',
      label: `Isolate ${room}`,
      icon: 'isolate',
      hint: mode,
      description: modeNote(mode),
      separated: i === 0,
      disabled: blocked,
      faults: [{ action: 'isolate', target: room, mode }]
    })),
    {
      type: 'apply',
      label: `Cut ${a} ~ ${b}`,
      icon: 'cut',
      hint: mode,
      description: modeNote(mode),
      separated: true,
      disabled: blocked,
      faults: [cut('both')]
    },
    {
      type: 'apply',
      label: `Cut ${a} → ${b} only`,
      icon: 'one-way',
      hint: mode,
      description: modeNote(mode),
      disabled: blocked,
      faults: [cut('to')]
    },
    {
      type: 'apply',
      label: `Cut ${b} → ${a} only`,
      icon: 'one-way',
      hint: mode,
      description: modeNote(mode),
      disabled: blocked,
      faults: [cut('from')]
    },
    ...shapeEntries(dialog, blocked, slow),
    {
      type: 'apply',
      label: `Heal ${a} ~ ${b}`,
      icon: 'heal',
      separated: true,
      disabled:
        blocked ??
        (faultsBetween(faults, a, b).length
          ? null
          : [a, b].some((r) => isolated(faults, r))
            ? `the link is cut by an isolated room; heal that room`
            : `no network fault between ${a} and ${b}`),
      faults: [{ action: 'heal', target: a, peer: b }]
    }
  ]
  // An isolated end cuts this link too, and only healing that room undoes it.
  for (const room of [a, b]) {
    if (!isolated(faults, room)) continue
    entries.push({
      type: 'apply',
      label: `Heal ${room}`,
      icon: 'heal',
      hint: 'isolated',
      description: `${room} is isolated, which cuts this link too; this heals every fault naming ${room}`,
      disabled: blocked,
      faults: [{ action: 'heal', target: room }]
    })
  }
  return entries
}

/** Node kinds that run in a network namespace of their own; clients share their room's worker. */
export const OWN_NAMESPACE_KINDS: ReadonlySet<string> = new Set([
  'nameserver',
  'broker',
  'management',
  'proxy'
])

/** A node the node menu offers network faults for: only servers DR Studio runs have their own namespace. */
export interface NetworkNode {
  id: string
  room: string
  /** A server DR Studio runs (name server, broker, management node, proxy), not attached. */
  ownNamespace: boolean
}

/** The node menu's network part: "Cut from…" (node-level partition) and healing what names the node. */
export function nodeMenuEntries(node: NetworkNode, gate: NetworkGate): NetworkEntry[] {
  const blocked = faultsBlockedBy(gate)
  const faults = gate.status?.faults ?? []
  const own = node.ownNamespace
    ? null
    : `${node.id} runs in ${node.room}'s client worker, not in a namespace of its own; cut ${node.room} instead`
  return [
    {
      type: 'dialog',
      label: 'Cut from…',
      icon: 'cut',
      separated: true,
      disabled: blocked ?? own,
      dialog: { kind: 'cut', target: node.id, peer: null, direction: 'both' }
    },
    {
      type: 'apply',
      label: `Heal network of ${node.id}`,
      icon: 'heal',
      disabled:
        blocked ??
        (faultsNaming(faults, node.id).length ? null : `no network fault names ${node.id}`),
      faults: [{ action: 'heal', target: node.id }]
    }
  ]
}
