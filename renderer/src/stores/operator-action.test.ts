import { beforeEach, describe, expect, it } from 'vitest'
import type { NodeStatus } from '../../../common/contract'
import { topologySchema } from '../../../common/topology'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { operatorMenuEntries } from '../model/operator-menu'
import { useEditorStore } from './editor-store'
import { useRunStore } from './run-store'
import { useUiStore } from './ui-store'

const topology = topologySchema.parse({
  kind: 'drstudio/topology',
  version: 1,
  name: 'theirs',
  rooms: [
    {
      id: 'room1',
      actions: {
        nameserver: { restart: 'ssh {host} sudo systemctl restart rmq-namesrv' },
        broker: { restart: 'ssh {host} sudo systemctl restart rmq-broker' }
      },
      nameServers: [{ id: 'ns-1', host: '10.0.0.1', port: 9876 }],
      brokers: [
        {
          id: 'broker-a',
          brokerName: 'broker-a',
          role: 'master',
          brokerId: 0,
          host: '10.0.0.2',
          port: 10911,
          actions: { kill: 'ssh {host} sudo pkill -9 -f broker-a', start: 'ssh {host} start-a' }
        }
      ]
    }
  ]
})

const calls: { channel: string; payload: unknown }[] = []
const status = (state: NodeStatus['state']): NodeStatus => ({
  nodeId: 'broker-a',
  kind: 'broker',
  room: 'room1',
  state,
  attached: true,
  address: '10.0.0.2:10911'
})
initBridge({
  transport: 'offline',
  connection: 'open',
  invoke: async (channel, payload) => {
    calls.push({ channel, payload })
    return status('down')
  },
  on: () => () => {},
  onConnection: () => () => {}
} satisfies RawBridge)

/** Answers the next confirmation the store asks with `answer`, and returns what it asked. */
function answerNext(answer: 'confirm' | 'cancel'): { title?: string; message?: string } {
  const seen: { title?: string; message?: string } = {}
  const off = useUiStore.subscribe((s) => {
    if (!s.confirm) return
    seen.title = s.confirm.title
    seen.message = s.confirm.message
    off()
    s.answer(answer)
  })
  return seen
}

beforeEach(() => {
  calls.length = 0
  useEditorStore.getState().load(topology, { path: null, fileName: 'theirs.json' })
  useRunStore.getState().applyStatus({ running: false, runId: null, startedAt: null, nodes: [] })
  useRunStore
    .getState()
    .applyStatus({ running: true, runId: 1, startedAt: 1, nodes: [status('up')] })
})

describe("an attached node's menu", () => {
  it("offers exactly the commands its topology gives (its own and its room's), each with its command", () => {
    const entries = operatorMenuEntries(topology, 'broker-a', 'up', true)
    expect(entries.map((e) => [e.action, e.disabled])).toEqual([
      ['kill', false],
      ['restart', false],
      ['start', true]
    ])
    expect(entries[0]!.command).toBe('ssh 10.0.0.2 sudo pkill -9 -f broker-a')
    expect(operatorMenuEntries(topology, 'ns-1', 'up', true).map((e) => e.action)).toEqual([
      'restart'
    ])
    expect(operatorMenuEntries(topology, 'broker-a', 'down', true)[0]!.disabled).toBe(true)
    expect(operatorMenuEntries(topology, 'broker-a', 'up', false).every((e) => e.disabled)).toBe(
      true
    )
  })
})

describe('operator actions from the app', () => {
  it('asks once, showing the command, and tells the engine the user confirmed', async () => {
    const seen = answerNext('confirm')
    await useRunStore.getState().operatorAction('broker-a', 'kill')
    expect(seen.title).toBe('Kill broker-a on your cluster?')
    expect(seen.message).toContain('ssh 10.0.0.2 sudo pkill -9 -f broker-a')
    expect(calls).toEqual([
      { channel: 'node:action', payload: { nodeId: 'broker-a', action: 'kill', confirmed: true } }
    ])
    // Later destructive actions of the session do not ask again.
    await useRunStore.getState().operatorAction('broker-a', 'restart')
    expect(useUiStore.getState().confirm).toBeNull()
    expect(calls[1]).toEqual({
      channel: 'node:action',
      payload: { nodeId: 'broker-a', action: 'restart', confirmed: false }
    })
  })

  it('runs nothing when the user cancels, and asks again next time', async () => {
    answerNext('cancel')
    await useRunStore.getState().operatorAction('broker-a', 'kill')
    expect(calls).toEqual([])
    const seen = answerNext('confirm')
    await useRunStore.getState().operatorAction('broker-a', 'kill')
    expect(seen.title).toBe('Kill broker-a on your cluster?')
    expect(calls).toHaveLength(1)
  })

  it('forgets the confirmation when the sandbox stops, as the engine does', async () => {
    answerNext('confirm')
    await useRunStore.getState().operatorAction('broker-a', 'kill')
    useRunStore.getState().applyStatus({ running: false, runId: null, startedAt: null, nodes: [] })
    useRunStore
      .getState()
      .applyStatus({ running: true, runId: 2, startedAt: 2, nodes: [status('up')] })
    const seen = answerNext('confirm')
    await useRunStore.getState().operatorAction('broker-a', 'kill')
    expect(seen.title).toBe('Kill broker-a on your cluster?')
  })

  it('a non-destructive command (start) runs without asking', async () => {
    await useRunStore.getState().operatorAction('broker-a', 'start')
    expect(calls).toEqual([
      { channel: 'node:action', payload: { nodeId: 'broker-a', action: 'start', confirmed: false } }
    ])
  })
})
