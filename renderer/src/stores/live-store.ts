import { create } from 'zustand'
import { z } from 'zod'
import type { ClientChoice } from '../model/flow-model'
import { roomIndex } from '../model/room-index'
import { useEditorStore } from './editor-store'
import { useUiStore } from './ui-store'

/**
 * One client's routing decision as the engine reports it (`client:choice`, see
 * `liveChoiceEventSchema`); loose on purpose so ledger records and older engines parse too.
 */
export const liveChoiceSchema = z.object({
  clientId: z.string().min(1),
  namesrvId: z.string().nullable().optional(),
  brokerId: z.string().nullable().optional(),
  room: z.string().optional(),
  namesrvRoom: z.string().nullable().optional(),
  brokerRoom: z.string().nullable().optional(),
  /** Messages per second currently flowing. */
  rate: z.number().nonnegative().optional(),
  at: z.number().optional(),
  /** Time from the first failed operation to this choice's first success (RTO), when known. */
  failoverMs: z.number().nonnegative().optional()
})
export type LiveChoice = z.infer<typeof liveChoiceSchema>

const endSchema = z.object({
  brokerId: z.string().nullable().optional(),
  namesrvId: z.string().nullable().optional(),
  room: z.string().optional()
})

/** A ledger failover record: `{kind|type: 'failover', clientId, from, to, ms|rtoMs|durationMs}`. */
const ledgerFailoverSchema = z.object({
  clientId: z.string().min(1),
  from: endSchema.optional(),
  to: endSchema,
  ms: z.number().optional(),
  rtoMs: z.number().optional(),
  durationMs: z.number().optional(),
  at: z.number().optional()
})

/** How long an edge flashes after a failover. */
export const FLASH_MS = 1600

export interface LiveState {
  /** Current choice per client: what the edges connect. Changes only when a client reroutes. */
  choices: Record<string, ClientChoice>
  /** Message rate per client; changes often, so edges read it by selector. */
  rates: Record<string, number>
  /** Client id → time of its last failover, for flashing its edges. */
  flashes: Record<string, number>
  /** `client:choice` (wired in engine-events). */
  applyChoice(payload: unknown): void
  applyChoices(batch: readonly unknown[]): void
  /** Wire `ledger:event` here; records that are not client choices or failovers are ignored. */
  applyLedgerEvent(payload: unknown): void
  applyLedgerEvents(batch: readonly unknown[]): void
  setRates(rates: Record<string, number>): void
  reset(): void
}

function roomOf(id: string | null | undefined): string | undefined {
  if (!id) return undefined
  return roomIndex(useEditorStore.getState().history.present).get(id)
}

function describeMove(
  what: 'broker' | 'name server',
  from: string | null | undefined,
  to: string | null | undefined,
  fromRoom?: string,
  toRoom?: string
): string {
  const a = fromRoom ?? roomOf(from)
  const b = toRoom ?? roomOf(to)
  if (a && b && a !== b) return `${what} ${a} → ${b}`
  return `${what} ${from ?? 'none'} → ${to ?? 'none'}`
}

/** Failover toast text, e.g. "producer-1 (room1): broker room1 → room2, 23 ms". */
export function failoverMessage(
  clientId: string,
  clientRoom: string | undefined,
  move: string,
  ms: number | undefined
): string {
  return `${clientId}${clientRoom ? ` (${clientRoom})` : ''}: ${move}${ms !== undefined ? `, ${Math.round(ms)} ms` : ''}`
}

const lastToastAt = new Map<string, number>()
let lastAnyToastAt = -Infinity
let suppressed = 0

function announce(clientId: string, message: string, now: number): void {
  // A flapping client, or a whole room failing over at once, would otherwise bury every other toast.
  if (now - (lastToastAt.get(clientId) ?? -Infinity) < 1000) return
  lastToastAt.set(clientId, now)
  if (now - lastAnyToastAt < 250) {
    suppressed++
    return
  }
  lastAnyToastAt = now
  const more = suppressed ? ` (+${suppressed} more reroutes)` : ''
  suppressed = 0
  useUiStore.getState().toast('warning', message + more, 'failover')
}

/** Live client routing: chosen name server and broker per client, rates, and failover flashes. */
export const useLiveStore = create<LiveState>()((set, get) => ({
  choices: {},
  rates: {},
  flashes: {},

  applyChoice(payload) {
    get().applyChoices([payload])
  },

  applyChoices(batch) {
    const s = get()
    let choices = s.choices
    let rates = s.rates
    let flashes = s.flashes
    const now = Date.now()
    for (const raw of batch) {
      const parsed = liveChoiceSchema.safeParse(raw)
      if (!parsed.success) continue
      const c = parsed.data
      const prev = choices[c.clientId]
      const next: ClientChoice = {
        clientId: c.clientId,
        namesrvId: c.namesrvId !== undefined ? c.namesrvId : (prev?.namesrvId ?? null),
        brokerId: c.brokerId !== undefined ? c.brokerId : (prev?.brokerId ?? null),
        ...((c.room ?? prev?.room) ? { room: (c.room ?? prev?.room)! } : {})
      }
      if (
        !prev ||
        prev.namesrvId !== next.namesrvId ||
        prev.brokerId !== next.brokerId ||
        prev.room !== next.room
      ) {
        if (choices === s.choices) choices = { ...choices }
        choices[c.clientId] = next
      }
      if (c.rate !== undefined && rates[c.clientId] !== c.rate) {
        if (rates === s.rates) rates = { ...rates }
        rates[c.clientId] = c.rate
      }
      const clientRoom = next.room ?? roomOf(c.clientId)
      const moves: string[] = []
      if (prev?.brokerId && next.brokerId !== prev.brokerId) {
        moves.push(
          describeMove('broker', prev.brokerId, next.brokerId, undefined, c.brokerRoom ?? undefined)
        )
      }
      if (prev?.namesrvId && next.namesrvId !== prev.namesrvId) {
        moves.push(
          describeMove(
            'name server',
            prev.namesrvId,
            next.namesrvId,
            undefined,
            c.namesrvRoom ?? undefined
          )
        )
      }
      if (moves.length) {
        if (flashes === s.flashes) flashes = { ...flashes }
        flashes[c.clientId] = now
        announce(
          c.clientId,
          failoverMessage(c.clientId, clientRoom, moves.join(', '), c.failoverMs),
          now
        )
      }
    }
    if (choices !== s.choices || rates !== s.rates || flashes !== s.flashes) {
      set({ choices, rates, flashes })
    }
  },

  applyLedgerEvent(payload) {
    get().applyLedgerEvents([payload])
  },

  applyLedgerEvents(batch) {
    const choices: unknown[] = []
    for (const raw of batch) {
      if (typeof raw !== 'object' || raw === null) continue
      const r = raw as Record<string, unknown>
      const kind = r.kind ?? r.type
      if (kind === 'failover') {
        const f = ledgerFailoverSchema.safeParse(raw)
        if (!f.success) continue
        const { clientId, to } = f.data
        const ms = f.data.ms ?? f.data.rtoMs ?? f.data.durationMs
        choices.push({
          clientId,
          ...(to.brokerId !== undefined ? { brokerId: to.brokerId } : {}),
          ...(to.namesrvId !== undefined ? { namesrvId: to.namesrvId } : {}),
          ...(ms !== undefined ? { failoverMs: ms } : {})
        })
      } else if (
        liveChoiceSchema.safeParse(raw).success &&
        ('brokerId' in r || 'namesrvId' in r || 'rate' in r)
      ) {
        choices.push(raw)
      }
    }
    if (choices.length) get().applyChoices(choices)
  },

  setRates(rates) {
    set({ rates: { ...get().rates, ...rates } })
  },

  reset() {
    lastToastAt.clear()
    lastAnyToastAt = -Infinity
    suppressed = 0
    set({ choices: {}, rates: {}, flashes: {} })
  }
}))
