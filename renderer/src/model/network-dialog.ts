import type {
  BlockMode,
  Direction,
  NetworkFault,
  NetworkFaultInput
} from '../../../common/scenario/schema'
import { networkFaultSchema } from '../../../common/scenario/schema'
import type { NetworkDialogKind } from './network-menu'

/** Peer value meaning "each of the other rooms" (one fault per room). */
export const EVERY_OTHER_ROOM = '*'

/** The dialog's fields as typed (numbers stay text until validated). */
export interface FaultDraft {
  kind: NetworkDialogKind
  target: string
  /** A room or node id, EVERY_OTHER_ROOM, or '' while none is chosen. */
  peer: string
  direction: Direction
  mode: BlockMode
  latencyMs: string
  jitterMs: string
  lossPct: string
  mbit: string
}

export type DraftField = 'peer' | 'latencyMs' | 'jitterMs' | 'lossPct' | 'mbit'

export type DraftResult =
  { ok: true; faults: NetworkFault[] } | { ok: false; errors: Partial<Record<DraftField, string>> }

interface Bound {
  field: string
  unit: string
  /** Smallest allowed value, exclusive when `above` is set. */
  min: number
  above?: boolean
  max: number
  example: string
}

const BOUNDS: Record<'latencyMs' | 'jitterMs' | 'lossPct' | 'mbit', Bound> = {
  latencyMs: {
    field: 'Latency',
    unit: 'milliseconds',
    min: 0,
    above: true,
    max: 60_000,
    example: '20'
  },
  jitterMs: { field: 'Jitter', unit: 'milliseconds', min: 0, max: 60_000, example: '2' },
  lossPct: { field: 'Loss', unit: 'a percentage', min: 0, above: true, max: 100, example: '30' },
  mbit: { field: 'Bandwidth', unit: 'Mbit/s', min: 0, above: true, max: 100_000, example: '10' }
}

/** A number within its bounds, or the error that names the field and the fix. */
export function parseBounded(
  text: string,
  key: keyof typeof BOUNDS
): { ok: true; value: number } | { ok: false; error: string } {
  const b = BOUNDS[key]
  const range = `${b.above ? 'above' : 'from'} ${b.min}${b.above ? ' and at most' : ' to'} ${b.max}`
  const fix = `${b.field}: enter ${b.unit} ${range}, e.g. ${b.example}`
  const t = text.trim().replace(',', '.')
  if (!t) return { ok: false, error: `${b.field} is empty. ${fix}` }
  const n = Number(t)
  if (!Number.isFinite(n))
    return { ok: false, error: `${b.field} "${text.trim()}" is not a number. ${fix}` }
  if (n < b.min || (b.above && n === b.min) || n > b.max) {
    return { ok: false, error: `${b.field} ${n} is out of range. ${fix}` }
  }
  return { ok: true, value: n }
}

/**
 * Checks the dialog and turns it into the faults to apply: one, or one per other room when the
 * peer is "every other room". Errors name the field and say what to enter.
 */
export function draftFaults(d: FaultDraft, rooms: readonly string[]): DraftResult {
  const errors: Partial<Record<DraftField, string>> = {}
  const peers =
    d.peer === EVERY_OTHER_ROOM ? rooms.filter((r) => r !== d.target) : d.peer ? [d.peer] : []
  if (!peers.length) errors.peer = `Peer: choose the room or node to ${verb(d.kind)} ${d.target}`
  else if (peers.includes(d.target)) {
    errors.peer = `Peer: ${d.target} cannot be paired with itself; choose another room or node`
  }
  const base = { target: d.target, direction: d.direction }
  let make: ((peer: string) => NetworkFaultInput) | null = null
  switch (d.kind) {
    case 'cut':
      make = (peer) => ({ action: 'partition', ...base, peer, mode: d.mode })
      break
    case 'delay': {
      const latency = parseBounded(d.latencyMs, 'latencyMs')
      const jitter = d.jitterMs.trim()
        ? parseBounded(d.jitterMs, 'jitterMs')
        : { ok: true as const, value: 0 }
      if (!latency.ok) errors.latencyMs = latency.error
      if (!jitter.ok) errors.jitterMs = jitter.error
      else if (latency.ok && jitter.value > latency.value) {
        errors.jitterMs = `Jitter ${jitter.value} is more than the latency (${latency.value} ms): enter at most ${latency.value}, or leave it empty for none`
      }
      if (latency.ok && jitter.ok) {
        make = (peer) => ({
          action: 'delay',
          ...base,
          peer,
          latencyMs: latency.value,
          jitterMs: jitter.value
        })
      }
      break
    }
    case 'loss': {
      const loss = parseBounded(d.lossPct, 'lossPct')
      if (!loss.ok) errors.lossPct = loss.error
      else make = (peer) => ({ action: 'loss', ...base, peer, lossPct: loss.value })
      break
    }
    case 'bandwidth': {
      const mbit = parseBounded(d.mbit, 'mbit')
      if (!mbit.ok) errors.mbit = mbit.error
      else make = (peer) => ({ action: 'bandwidth', ...base, peer, mbit: mbit.value })
      break
    }
  }
  if (Object.keys(errors).length || !make) return { ok: false, errors }
  // The contract's own schema has the last word, so the engine never sees what it would refuse.
  return { ok: true, faults: peers.map((p) => networkFaultSchema.parse(make(p))) }
}

function verb(kind: NetworkDialogKind): string {
  return kind === 'cut'
    ? 'cut'
    : kind === 'delay'
      ? 'slow'
      : kind === 'loss'
        ? 'make lossy'
        : 'limit'
}

/** The dialog's title, e.g. "Slow room1 ~ room2", "Cut broker-1 from…". */
export function dialogTitle(kind: NetworkDialogKind, target: string, peer: string | null): string {
  const what =
    kind === 'cut' ? 'Cut' : kind === 'delay' ? 'Slow' : kind === 'loss' ? 'Lossy' : 'Bandwidth of'
  if (peer) return `${what} ${target} ~ ${peer}`
  return kind === 'cut' ? `Cut ${target} from…` : `${what} ${target}…`
}

/** The direction choices, from the target's point of view ("to" = packets from target to peer). */
export function directionOptions(
  target: string,
  peer: string
): { value: Direction; label: string }[] {
  const other = peer === EVERY_OTHER_ROOM ? 'every other room' : peer || 'the peer'
  return [
    { value: 'both', label: `Both ways (${target} ~ ${other})` },
    { value: 'to', label: `${target} → ${other} only` },
    { value: 'from', label: `${other} → ${target} only` }
  ]
}
