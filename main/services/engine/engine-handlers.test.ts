import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventChannel } from '../../../common/contract'
import type { Topology } from '../../../common/topology/schema'
import { topologySchema } from '../../../common/topology/schema'
import type { SandboxPort, SandboxStatus } from './engine'
import { Engine, sameDeployment } from './engine'
import { openDatabase, Recorder } from '../ledger/recorder'

const ROOT = resolve(import.meta.dirname, '../../..')
const twoRooms = topologySchema.parse(
  JSON.parse(readFileSync(join(ROOT, 'resources/topologies/two-rooms.json'), 'utf8'))
)

/** A sandbox whose boot never finishes until stopped, so a scenario stays in its setup. */
class HangingSandbox implements SandboxPort {
  starts: (number | undefined)[] = []
  private running = false
  private reject: ((e: Error) => void) | undefined
  start(_t: Topology, runId?: number): Promise<SandboxStatus> {
    this.starts.push(runId)
    return new Promise((_, reject) => (this.reject = reject))
  }
  async stop(): Promise<SandboxStatus> {
    this.reject?.(new Error('stopped while booting'))
    this.running = false
    return this.status()
  }
  status(): SandboxStatus {
    return { running: this.running, runId: null, startedAt: null, nodes: [] }
  }
  act(): never {
    throw new Error('no nodes')
  }
  readLog(): never {
    throw new Error('no logs')
  }
}

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))

function engineWith(sandbox: SandboxPort): { engine: Engine; seen: [EventChannel, unknown][] } {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-engine-'))
  dirs.push(dataDir)
  const engine = new Engine({
    shell: 'browser',
    version: 'test',
    dataDir,
    resourcesDir: join(ROOT, 'resources'),
    recorder: new Recorder(openDatabase(join(dataDir, 'drstudio.db'))),
    sandbox: () => sandbox
  })
  const seen: [EventChannel, unknown][] = []
  engine.events.onAny((c, p) => seen.push([c, p]))
  return { engine, seen }
}

describe('engine scenario handlers', () => {
  it('starts in the background, refuses a second run, and cancels cleanly', async () => {
    const sandbox = new HangingSandbox()
    const { engine, seen } = engineWith(sandbox)
    await expect(engine.handlers['scenario:run']({ id: 'healthy' })).resolves.toEqual({
      started: true,
      scenario: 'healthy'
    })
    await expect(engine.handlers['scenario:run']({ id: 'healthy' })).rejects.toThrow(
      /already running/
    )
    await expect(engine.handlers['sandbox:start']({ document: twoRooms })).rejects.toThrow(
      /using the sandbox/
    )
    expect(sandbox.starts).toEqual([undefined])
    await expect(engine.handlers['scenario:cancel']({})).resolves.toEqual({ cancelled: true })
    await expect(engine.handlers['scenario:cancel']({})).resolves.toEqual({ cancelled: false })
    const states = seen.filter(([c]) => c === 'scenario:state').map(([, p]) => p)
    expect(states).toEqual([
      { running: true, scenario: 'healthy', runId: null },
      { running: false, scenario: 'healthy', runId: null }
    ])
    expect(seen).toContainEqual([
      'engine:notice',
      { level: 'info', message: 'scenario "healthy" cancelled' }
    ])
    await engine.dispose()
  })

  it('a sweep from the Scenarios panel: bad flags are refused naming the fix before anything boots; good ones start the one scenario', async () => {
    const sandbox = new HangingSandbox()
    const { engine, seen } = engineWith(sandbox)
    await expect(
      engine.handlers['scenario:run']({
        id: 'room1-broker-paused',
        vary: ['client.requestTimeot=200ms,800ms']
      })
    ).rejects.toThrow(
      /no client setting "client.requestTimeot"; vary lane or one of .*requestTimeout/
    )
    await expect(
      engine.handlers['scenario:run']({ id: 'room1-broker-paused', vary: ['lane=remoting,cobol'] })
    ).rejects.toThrow(/no lane "cobol"/)
    expect(sandbox.starts).toEqual([])
    expect(seen.filter(([c]) => c === 'scenario:state')).toEqual([])
    await expect(
      engine.handlers['scenario:run']({
        id: 'room1-broker-paused',
        vary: ['client.requestTimeout=400ms,1500ms']
      })
    ).resolves.toEqual({ started: true, scenario: 'room1-broker-paused' })
    expect(sandbox.starts).toEqual([undefined])
    await expect(engine.handlers['scenario:cancel']({})).resolves.toEqual({ cancelled: true })
    await engine.dispose()
  })

  it('a Kubernetes target: contexts read from the kubeconfig; a run there never boots the sandbox, and says why it could not run', async () => {
    const saved = process.env.KUBECONFIG
    process.env.KUBECONFIG = '/nonexistent/drstudio-kubeconfig'
    try {
      const sandbox = new HangingSandbox()
      const { engine, seen } = engineWith(sandbox)
      await expect(engine.handlers['kubernetes:contexts']({})).resolves.toEqual({
        kubeconfig: '/nonexistent/drstudio-kubeconfig',
        contexts: [],
        problem:
          'no kubeconfig at /nonexistent/drstudio-kubeconfig: set KUBECONFIG or create it (kubectl config) to run on Kubernetes'
      })
      await engine.handlers['scenario:run']({
        id: 'healthy',
        target: { kind: 'kubernetes', context: 'lab' }
      })
      await expect
        .poll(() => seen.at(-1))
        .toEqual(['scenario:state', { running: false, scenario: 'healthy', runId: null }])
      expect(sandbox.starts).toEqual([])
      expect(seen).toContainEqual([
        'engine:notice',
        {
          level: 'error',
          message: expect.stringMatching(
            /^scenario "healthy" failed: scenario healthy could not run on Kubernetes: \/nonexistent\/drstudio-kubeconfig: cannot read the kubeconfig/
          )
        }
      ])
      // The canvas shows one deployment at a time: not while the sandbox runs.
      sandbox.status = () => ({ running: true, runId: 1, startedAt: 1, nodes: [] })
      await expect(
        engine.handlers['scenario:run']({
          id: 'healthy',
          target: { kind: 'kubernetes', context: 'lab' }
        })
      ).rejects.toThrow(
        /the sandbox is running on this machine: stop it before running healthy on lab/
      )
      sandbox.status = () => ({ running: false, runId: null, startedAt: null, nodes: [] })
      await engine.dispose()
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG
      else process.env.KUBECONFIG = saved
    }
  })

  it('names the built-ins when the id is unknown', async () => {
    const { engine } = engineWith(new HangingSandbox())
    await expect(engine.handlers['scenario:run']({ id: 'nope' })).rejects.toThrow(
      /no built-in scenario "nope"; choose one of .*healthy/
    )
    await engine.dispose()
  })

  it('a failing scenario ends with scenario:state running:false and an error notice', async () => {
    const sandbox = new HangingSandbox()
    sandbox.start = () => Promise.reject(new Error('java not found'))
    const { engine, seen } = engineWith(sandbox)
    await engine.handlers['scenario:run']({ id: 'healthy' })
    await new Promise((r) => setTimeout(r, 20))
    expect(seen).toContainEqual([
      'engine:notice',
      { level: 'error', message: 'scenario "healthy" failed: java not found' }
    ])
    expect(seen.at(-1)).toEqual([
      'scenario:state',
      { running: false, scenario: 'healthy', runId: null }
    ])
    await engine.dispose()
  })

  it('sameDeployment ignores layout and description only', () => {
    expect(
      sameDeployment(twoRooms, { ...twoRooms, layout: { x: { x: 1, y: 2 } }, description: 'x' })
    ).toBe(true)
    expect(sameDeployment(twoRooms, { ...twoRooms, name: 'other' })).toBe(false)
  })
})

/** A running sandbox with one attached broker, recording what it was asked. */
class AttachedSandbox implements SandboxPort {
  acted: string[] = []
  allowed: boolean[] = []
  start(): never {
    throw new Error('not started in this test')
  }
  async stop(): Promise<SandboxStatus> {
    return this.status()
  }
  status(): SandboxStatus {
    return {
      running: true,
      runId: 1,
      startedAt: 1,
      nodes: [
        { nodeId: 'broker-a', kind: 'broker', room: 'room1', state: 'up', attached: true },
        { nodeId: 'broker-1', kind: 'broker', room: 'room1', state: 'up' }
      ]
    }
  }
  async act(nodeId: string, action: string) {
    this.acted.push(`${action} ${nodeId}`)
    return this.status().nodes.find((n) => n.nodeId === nodeId)!
  }
  readLog(): never {
    throw new Error('no logs')
  }
  allowOperatorActions(allow: boolean): void {
    this.allowed.push(allow)
  }
}

describe('operator actions on an attached cluster', () => {
  it('runs the first destructive one only once the user confirmed, and does not ask again', async () => {
    const sandbox = new AttachedSandbox()
    const { engine } = engineWith(sandbox)
    const act = engine.handlers['node:action']
    await expect(act({ nodeId: 'broker-a', action: 'kill' })).rejects.toThrow(
      /runs your own command on a cluster DR Studio does not own; confirm it first/
    )
    expect(sandbox.acted).toEqual([])
    await act({ nodeId: 'broker-a', action: 'kill', confirmed: true })
    await act({ nodeId: 'broker-a', action: 'stop' })
    expect(sandbox.acted).toEqual(['kill broker-a', 'stop broker-a'])
    expect(sandbox.allowed.at(-1)).toBe(true)
    // DR Studio's own nodes never ask.
    await act({ nodeId: 'broker-1', action: 'kill' })
    expect(sandbox.acted.at(-1)).toBe('kill broker-1')
  })
})

/** A sandbox that boots at once and acts on its nodes by changing their state. */
class InstantSandbox implements SandboxPort {
  running = false
  private states = new Map([
    ['ns-1', 'up'],
    ['broker-1', 'up']
  ])
  stops: ({ force?: boolean } | undefined)[] = []
  async start(): Promise<SandboxStatus> {
    this.running = true
    return this.status()
  }
  async stop(options?: { force?: boolean }): Promise<SandboxStatus> {
    this.stops.push(options)
    this.running = false
    return this.status()
  }
  status(): SandboxStatus {
    return {
      running: this.running,
      runId: null,
      startedAt: null,
      nodes: [...this.states].map(([nodeId, state]) => ({
        nodeId,
        kind: nodeId.startsWith('ns') ? 'nameserver' : 'broker',
        room: 'room1',
        state
      })) as SandboxStatus['nodes']
    }
  }
  async act(nodeId: string, action: string) {
    this.states.set(nodeId, action === 'kill' ? 'killed' : 'up')
    return this.status().nodes.find((n) => n.nodeId === nodeId)!
  }
  readLog(): never {
    throw new Error('no logs')
  }
}

/** two-rooms without its producers and consumers: a live run records nodes only, no workers. */
const noClients = {
  ...twoRooms,
  rooms: twoRooms.rooms.map((r) => ({ ...r, producers: [], consumers: [] }))
}

describe('a scenario on another topology than the running sandbox', () => {
  it('stops the running sandbox and boots its own, rather than cancelling itself', async () => {
    const sandbox = new InstantSandbox()
    const { engine, seen } = engineWith(sandbox)
    await engine.handlers['sandbox:start']({ document: noClients })
    // The scenario's own boot fails here: it got that far, so it did not cancel itself.
    sandbox.start = () => Promise.reject(new Error('second boot refused by the test'))
    await engine.handlers['scenario:run']({ id: 'healthy' })
    await new Promise((r) => setTimeout(r, 50))
    expect(sandbox.stops).toEqual([{ force: true }])
    expect(seen).toContainEqual([
      'engine:notice',
      { level: 'error', message: 'scenario "healthy" failed: second boot refused by the test' }
    ])
    await engine.dispose()
  })
})

describe('Start, a node action and Stop on a topology without clients', () => {
  it('records the action as an operator fault of the sandbox run and ends it stopped, with no scorecard', async () => {
    const sandbox = new InstantSandbox()
    const { engine, seen } = engineWith(sandbox)
    await engine.handlers['sandbox:start']({ document: noClients })
    const status = await engine.handlers['node:action']({ nodeId: 'broker-1', action: 'kill' })
    expect(status).toMatchObject({ nodeId: 'broker-1', state: 'killed' })
    await expect(
      engine.handlers['node:action']({ nodeId: 'ns-9', action: 'kill' })
    ).rejects.toThrow(/ns-9/)
    await engine.handlers['sandbox:stop']({})
    // Stop throws the sandbox away once the run is recorded: its JVMs are killed, not shut down.
    expect(sandbox.stops).toEqual([{ force: true }])
    const [run] = await engine.handlers['runs:list']({ limit: 5 })
    expect(run).toMatchObject({ kind: 'sandbox', verdict: 'stopped' })
    const detail = await engine.handlers['runs:get']({ id: run!.id })
    const faults = detail.events.filter((e) => e.kind === 'fault').map((e) => e.data)
    expect(faults).toEqual([
      expect.objectContaining({
        action: 'kill',
        nodes: ['broker-1'],
        ok: true,
        source: 'operator'
      }),
      expect.objectContaining({ action: 'kill', ok: false, source: 'operator' })
    ])
    expect(seen.filter(([c]) => c === 'scenario:report')).toEqual([])
    await engine.dispose()
  })
})
