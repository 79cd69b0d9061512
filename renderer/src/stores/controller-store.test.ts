import { describe, expect, it } from 'vitest'
import { describeRole } from '../canvas/controller-badge'
import { applyControllerEvent, liveRoleOf, useControllerStore } from './controller-store'

const ev = (kind: string, data: Record<string, unknown>) => ({
  runId: 1,
  atMs: 0,
  kind,
  clientId: null,
  room: null,
  data
})

const BOOT = [
  ev('controller-leader-changed', { from: null, to: 'ns-1' }),
  ev('master-elected', { group: 'broker-a', from: null, to: 'broker-a-1', epoch: 1 }),
  ev('sync-state-set-changed', {
    group: 'broker-a',
    inSync: ['broker-a-1', 'broker-a-2'],
    notInSync: ['broker-a-3']
  })
]

describe('controller store', () => {
  it('reads leader, master, epoch and SyncStateSet from the ledger events', () => {
    let s = { leader: null as string | null, groups: {} }
    for (const e of BOOT) s = applyControllerEvent(s, e, 100)
    expect(s.leader).toBe('ns-1')
    expect(liveRoleOf(s, 'broker-a-1')).toEqual({
      kind: 'master',
      group: 'broker-a',
      epoch: 1,
      changedAt: 0,
      previous: null
    })
    expect(liveRoleOf(s, 'broker-a-2')).toEqual({
      kind: 'replica',
      group: 'broker-a',
      inSync: true,
      acting: false
    })
    expect(liveRoleOf(s, 'broker-a-3')).toMatchObject({ inSync: false })
    expect(liveRoleOf(s, 'ns-1')).toEqual({ kind: 'leader' })
    expect(liveRoleOf(s, 'consumer-1')).toBeNull()
  })

  it('marks a switch with its time and the master it replaced, once', () => {
    let s = { leader: null as string | null, groups: {} }
    for (const e of BOOT) s = applyControllerEvent(s, e, 100)
    s = applyControllerEvent(
      s,
      ev('master-elected', { group: 'broker-a', from: 'broker-a-1', to: 'broker-a-2', epoch: 2 }),
      500
    )
    expect(liveRoleOf(s, 'broker-a-2')).toEqual({
      kind: 'master',
      group: 'broker-a',
      epoch: 2,
      changedAt: 500,
      previous: 'broker-a-1'
    })
    // A new epoch of the same master is not another take-over.
    s = applyControllerEvent(
      s,
      ev('master-elected', { group: 'broker-a', from: 'broker-a-2', to: 'broker-a-2', epoch: 3 }),
      900
    )
    expect(liveRoleOf(s, 'broker-a-2')).toMatchObject({ epoch: 3, changedAt: 500 })
  })

  it('shows a replica that still acts as master (split brain)', () => {
    let s = { leader: null as string | null, groups: {} }
    for (const e of BOOT) s = applyControllerEvent(s, e, 100)
    s = applyControllerEvent(
      s,
      ev('master-elected', { group: 'broker-a', to: 'broker-a-2', epoch: 2 }),
      200
    )
    s = applyControllerEvent(
      s,
      ev('sync-state-set-changed', {
        group: 'broker-a',
        inSync: ['broker-a-2'],
        notInSync: ['broker-a-1', 'broker-a-3']
      }),
      200
    )
    s = applyControllerEvent(
      s,
      ev('masters-observed', { group: 'broker-a', masters: ['broker-a-1', 'broker-a-2'] }),
      300
    )
    expect(describeRole('broker-a-1', liveRoleOf(s, 'broker-a-1'))).toBe(
      'split|0|0|broker-a-1 is a replica of broker-a, not in its SyncStateSet, and still acts as master'
    )
    expect(describeRole('broker-a-2', liveRoleOf(s, 'broker-a-2'))).toBe(
      'master|2|200|broker-a-2 is master of broker-a, epoch 2 (took over from broker-a-1)'
    )
  })

  it('ignores other and malformed events, and resets', () => {
    const s = { leader: 'ns-1', groups: {} }
    expect(applyControllerEvent(s, ev('broker-choice', { brokerName: 'x' }), 1)).toBe(s)
    expect(applyControllerEvent(s, null, 1)).toBe(s)
    expect(applyControllerEvent(s, ev('master-elected', { to: 'x' }), 1)).toBe(s)
    useControllerStore.getState().applyLedgerEvents(BOOT)
    expect(useControllerStore.getState().groups['broker-a']?.master).toBe('broker-a-1')
    useControllerStore.getState().reset()
    expect(useControllerStore.getState()).toMatchObject({ leader: null, groups: {} })
  })
})
