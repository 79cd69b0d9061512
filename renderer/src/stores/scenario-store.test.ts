import { beforeEach, describe, expect, it } from 'vitest'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { useScenarioStore } from './scenario-store'
import { useUiStore } from './ui-store'

const calls: { channel: string; payload: unknown }[] = []
let refuse: string | null = null
let contexts = {
  kubeconfig: '/home/me/.kube/config',
  contexts: [{ name: 'lab', server: 'https://10.0.0.1:6443', namespace: null, current: true }],
  problem: null as string | null
}

const fake: RawBridge = {
  transport: 'offline',
  connection: 'open',
  invoke: async (channel, payload) => {
    calls.push({ channel, payload })
    if (refuse) throw new Error(refuse)
    if (channel === 'kubernetes:contexts') return contexts
    return { started: true, scenario: 'room1-broker-paused' }
  },
  on: () => () => {},
  onConnection: () => () => {}
}
initBridge(fake)

beforeEach(() => {
  calls.length = 0
  refuse = null
  useScenarioStore.setState({
    running: false,
    busy: null,
    sweepFor: null,
    contexts: null,
    target: null,
    scenarios: [
      {
        id: 'room1-broker-paused',
        name: 'room1-broker-paused',
        topology: 'two-rooms',
        description: ''
      } as never
    ]
  })
})

describe('scenario store: sweeps', () => {
  it('starts a sweep as scenario:run with the flags and runs, and closes the dialog', async () => {
    useScenarioStore.getState().openSweep('room1-broker-paused')
    const error = await useScenarioStore
      .getState()
      .run('room1-broker-paused', { vary: ['client.requestTimeout=400ms,1500ms'], runs: 2 })
    expect(error).toBeNull()
    expect(calls).toEqual([
      {
        channel: 'scenario:run',
        payload: {
          id: 'room1-broker-paused',
          vary: ['client.requestTimeout=400ms,1500ms'],
          runs: 2
        }
      }
    ])
    expect(useScenarioStore.getState()).toMatchObject({ running: true, sweepFor: null })
  })

  it("hands the engine's refusal back to the dialog, which stays open", async () => {
    refuse = '--vary client.requestTimeout=1,x: "x" is not a value of client.requestTimeout'
    useScenarioStore.getState().openSweep('room1-broker-paused')
    const toasts = useUiStore.getState().toasts.length
    const error = await useScenarioStore
      .getState()
      .run('room1-broker-paused', { vary: ['client.requestTimeout=1,x'], runs: 1 })
    expect(error).toMatch(/"x" is not a value of client.requestTimeout/)
    expect(useScenarioStore.getState()).toMatchObject({
      running: false,
      busy: null,
      sweepFor: 'room1-broker-paused'
    })
    expect(useUiStore.getState().toasts.length).toBe(toasts)
  })

  it('a plain run sends only the id', async () => {
    await useScenarioStore.getState().run('room1-broker-paused')
    expect(calls).toEqual([{ channel: 'scenario:run', payload: { id: 'room1-broker-paused' } }])
  })
})

describe('scenario store: the run target', () => {
  it('runs on the chosen Kubernetes context, and on this machine again when none is chosen', async () => {
    await useScenarioStore.getState().loadContexts()
    expect(useScenarioStore.getState().contexts!.contexts.map((c) => c.name)).toEqual(['lab'])
    useScenarioStore.getState().setTarget('lab')
    expect(await useScenarioStore.getState().run('room1-broker-paused')).toBeNull()
    expect(calls.at(-1)).toEqual({
      channel: 'scenario:run',
      payload: { id: 'room1-broker-paused', target: { kind: 'kubernetes', context: 'lab' } }
    })
    useScenarioStore.setState({ running: false })
    useScenarioStore.getState().setTarget(null)
    await useScenarioStore.getState().run('room1-broker-paused')
    expect(calls.at(-1)).toEqual({
      channel: 'scenario:run',
      payload: { id: 'room1-broker-paused' }
    })
  })

  it('forgets a target whose context left the kubeconfig', async () => {
    useScenarioStore.setState({ target: 'gone' })
    await useScenarioStore.getState().loadContexts()
    expect(useScenarioStore.getState().target).toBeNull()
    contexts = { kubeconfig: '/k', contexts: [], problem: 'no kubeconfig at /k' }
    await useScenarioStore.getState().loadContexts()
    expect(useScenarioStore.getState().contexts!.problem).toBe('no kubeconfig at /k')
  })

  it('never sends a sweep to Kubernetes', async () => {
    useScenarioStore.setState({ target: 'lab' })
    await useScenarioStore
      .getState()
      .run('room1-broker-paused', { vary: ['lane=remoting,java'], runs: 1 })
    expect(calls.at(-1)!.payload).not.toHaveProperty('target')
  })
})
