import { describe, expect, it } from 'vitest'
import type { NodeAction, NodeState } from '../../../common/contract'
import { ownActionDisabled } from './own-node-menu'

const MENU: NodeAction[] = ['kill', 'pause', 'resume', 'restart']
const offered = (state: NodeState | undefined, running = true): NodeAction[] =>
  MENU.filter((a) => !ownActionDisabled(a, state, running))

describe('ownActionDisabled', () => {
  it('offers what the state machine accepts in each state', () => {
    expect(offered('up')).toEqual(['kill', 'pause', 'restart'])
    expect(offered('paused')).toEqual(['kill', 'resume', 'restart'])
    // A killed, stopped or crashed node can only be started again (Restart).
    for (const s of ['killed', 'stopped', 'down', 'failed'] as const) {
      expect(offered(s), s).toEqual(['restart'])
    }
    expect(offered('starting')).toEqual(['kill', 'restart'])
    expect(offered('electing')).toEqual(['kill', 'restart'])
  })

  it('offers nothing outside a run, and everything before a state is known', () => {
    expect(offered('up', false)).toEqual([])
    expect(offered(undefined)).toEqual(MENU)
  })
})
