import { afterEach, describe, expect, it } from 'vitest'
import { topologySchema } from '../../../common/topology'
import { RemotingRpc } from '../remoting'
import { encodeFrame } from '../remoting/codec'
import { startStubServer, stubReply, type StubServer } from '../remoting/stub-server'
import type { ObservedChange, ProbePort, ProbeTarget, ProberClock } from './prober'
import { AttachedProber, classifyProbe, nextWatch, probeTargets } from './prober'
import { remotingProbePort } from './remoting-ports'

/** A clock whose time only moves when the test says so. */
class ManualClock implements ProberClock {
  private t = 0
  private timers: { at: number; fn: () => void; id: number }[] = []
  private nextId = 1

  now(): number {
    return this.t
  }

  /** Timers set and neither fired nor cancelled. */
  get pending(): number {
    return this.timers.length
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const id = this.nextId++
    this.timers.push({ at: this.t + ms, fn, id })
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id)
    }
  }

  /** Moves time forward, firing due timers in order (and letting promise callbacks run between). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    for (;;) {
      await flush()
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.timers = this.timers.filter((x) => x !== due)
      this.t = due.at
      due.fn()
    }
    this.t = end
    await flush()
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

type Behaviour = { latency: number } | { error: string; code?: string } | 'hang'

/** A probe port whose answers follow a per-node script, timed on the manual clock. */
function scriptedPort(
  clock: ManualClock,
  script: Record<string, Behaviour>
): ProbePort & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    probe(target) {
      asked.push(target.nodeId)
      const b = script[target.nodeId] ?? { latency: 1 }
      if (b === 'hang') return new Promise(() => {})
      if ('error' in b) {
        const e = Object.assign(new Error(b.error), b.code ? { code: b.code } : {})
        return Promise.reject(e)
      }
      return new Promise((resolve) => clock.setTimeout(() => resolve({}), b.latency))
    }
  }
}

const targets: ProbeTarget[] = [
  { nodeId: 'ns-1', kind: 'nameserver', room: 'room1', address: '10.0.0.1:9876' },
  { nodeId: 'broker-a', kind: 'broker', room: 'room1', address: '10.0.0.2:10911' }
]

function watch(
  clock: ManualClock,
  port: ProbePort,
  extra: Partial<ConstructorParameters<typeof AttachedProber>[0]> = {}
) {
  const prober = new AttachedProber({
    targets,
    port,
    clock,
    intervalMs: 1000,
    timeoutMs: 500,
    slowMs: 200,
    ...extra
  })
  const changes: ObservedChange[] = []
  prober.on('change', (c) => changes.push(c))
  return { prober, changes }
}

describe('classifyProbe / nextWatch', () => {
  it('classifies answers by latency and failures as down', () => {
    expect(classifyProbe({ ok: true, latencyMs: 12 }, 200)).toEqual({
      state: 'up',
      reason: 'answered in 12 ms'
    })
    expect(classifyProbe({ ok: true, latencyMs: 250, detail: 'answered code 1' }, 200)).toEqual({
      state: 'slow',
      reason: 'answered in 250 ms, over 200 ms (answered code 1)'
    })
    expect(classifyProbe({ ok: true, latencyMs: 200 }, 200).state).toBe('up')
    expect(classifyProbe({ ok: false, latencyMs: 500, error: 'x', timedOut: true }, 200)).toEqual({
      state: 'down',
      reason: 'no answer within 500 ms'
    })
    expect(
      classifyProbe({ ok: false, latencyMs: 3, error: 'ECONNREFUSED', timedOut: false }, 200).reason
    ).toBe('ECONNREFUSED')
  })

  it('goes down after the configured number of failures in a row, and resets on an answer', () => {
    const down = { state: 'down' as const }
    let w = { state: 'up' as const, failures: 0 } as Parameters<typeof nextWatch>[0]
    let r = nextWatch(w, down, 2)
    expect(r).toEqual({ watch: { state: 'up', failures: 1 }, changed: false })
    r = nextWatch(r.watch, { state: 'up' }, 2)
    expect(r).toEqual({ watch: { state: 'up', failures: 0 }, changed: false })
    r = nextWatch(nextWatch(r.watch, down, 2).watch, down, 2)
    expect(r).toEqual({ watch: { state: 'down', failures: 2 }, changed: true })
    w = { state: null, failures: 0 }
    expect(nextWatch(w, down, 1)).toEqual({ watch: { state: 'down', failures: 1 }, changed: true })
  })
})

describe('probeTargets', () => {
  it('takes every attached server node; a proxy is probed on its remoting port or not at all', () => {
    const t = topologySchema.parse({
      kind: 'drstudio/topology',
      version: 1,
      name: 't',
      rooms: [
        {
          id: 'room1',
          nameServers: [{ id: 'ns-1', host: 'h', port: 9876 }, { id: 'ns-own' }],
          brokers: [
            { id: 'b', brokerName: 'b', role: 'master', brokerId: 0, host: 'h', port: 10911 }
          ],
          proxies: [
            { id: 'p1', host: 'h', port: 8081, remotingPort: 8080 },
            { id: 'p2', host: 'h', port: 8091 }
          ],
          managementNodes: [{ id: 'm', host: 'h', port: 8088 }],
          producers: [{ id: 'pr', topic: 't', group: 'g' }]
        }
      ]
    })
    const got = probeTargets(t)
    expect(got.map((x) => [x.nodeId, x.kind, x.address ?? null])).toEqual([
      ['ns-1', 'nameserver', 'h:9876'],
      ['b', 'broker', 'h:10911'],
      ['m', 'management', 'h:8088'],
      ['p1', 'proxy', 'h:8080'],
      ['p2', 'proxy', null]
    ])
    expect(got[4]?.unprobedReason).toMatch(/set remotingPort to watch it/)
  })
})

describe('AttachedProber', () => {
  it('emits the first state of each node, then only changes, with latency and reason', async () => {
    const clock = new ManualClock()
    const script: Record<string, Behaviour> = { 'ns-1': { latency: 5 }, 'broker-a': { latency: 5 } }
    const { prober, changes } = watch(clock, scriptedPort(clock, script))
    prober.start()
    await clock.advance(10)
    expect(changes.map((c) => [c.nodeId, c.from, c.to, c.latencyMs, c.reason])).toEqual([
      ['ns-1', null, 'up', 5, 'answered in 5 ms'],
      ['broker-a', null, 'up', 5, 'answered in 5 ms']
    ])
    await clock.advance(3000)
    expect(changes).toHaveLength(2)
    script['broker-a'] = { error: 'cannot connect to 10.0.0.2:10911: ECONNREFUSED' }
    await clock.advance(1000)
    expect(changes.slice(2).map((c) => [c.nodeId, c.from, c.to, c.reason, c.at])).toEqual([
      ['broker-a', 'up', 'down', 'cannot connect to 10.0.0.2:10911: ECONNREFUSED', 4000]
    ])
    script['broker-a'] = { latency: 300 }
    await clock.advance(1300)
    expect(changes.at(-1)).toMatchObject({
      nodeId: 'broker-a',
      from: 'down',
      to: 'slow',
      latencyMs: 300
    })
    script['broker-a'] = { latency: 3 }
    await clock.advance(1000)
    expect(changes.at(-1)).toMatchObject({ nodeId: 'broker-a', from: 'slow', to: 'up' })
    expect(prober.states()).toEqual({ 'ns-1': 'up', 'broker-a': 'up' })
    prober.stop()
  })

  it('times out a probe that never answers and does not stack probes on it', async () => {
    const clock = new ManualClock()
    const port = scriptedPort(clock, { 'broker-a': 'hang' })
    const { prober, changes } = watch(clock, port, { timeoutMs: 500 })
    prober.start()
    await clock.advance(600)
    expect(changes.find((c) => c.nodeId === 'broker-a')).toMatchObject({
      to: 'down',
      reason: 'no answer within 500 ms',
      latencyMs: 500
    })
    await clock.advance(3000)
    // The timed-out probe is settled, so each round asks again, once.
    expect(port.asked.filter((n) => n === 'broker-a')).toHaveLength(4)
    prober.stop()
  })

  it('skips a node whose previous probe is still out (timeout longer than the interval)', async () => {
    const clock = new ManualClock()
    const port = scriptedPort(clock, { 'broker-a': 'hang' })
    const { prober } = watch(clock, port, { timeoutMs: 2500, intervalMs: 1000 })
    prober.start()
    await clock.advance(2000)
    expect(port.asked.filter((n) => n === 'broker-a')).toHaveLength(1)
    expect(port.asked.filter((n) => n === 'ns-1')).toHaveLength(3)
    prober.stop()
  })

  it('waits for failuresBeforeDown failures in a row', async () => {
    const clock = new ManualClock()
    const script: Record<string, Behaviour> = {}
    const { prober, changes } = watch(clock, scriptedPort(clock, script), { failuresBeforeDown: 3 })
    prober.start()
    await clock.advance(10)
    script['ns-1'] = { error: 'closed' }
    await clock.advance(2000)
    expect(changes.filter((c) => c.to === 'down')).toEqual([])
    await clock.advance(1000)
    expect(changes.filter((c) => c.to === 'down').map((c) => c.nodeId)).toEqual(['ns-1'])
    prober.stop()
  })

  it('reports an unprobeable node once as unprobed, with the reason', async () => {
    const clock = new ManualClock()
    const prober = new AttachedProber({
      targets: [{ nodeId: 'p2', kind: 'proxy', room: 'room1', unprobedReason: 'no remotingPort' }],
      port: scriptedPort(clock, {}),
      clock,
      intervalMs: 1000,
      timeoutMs: 500
    })
    const changes: ObservedChange[] = []
    prober.on('change', (c) => changes.push(c))
    prober.start()
    await clock.advance(3000)
    expect(changes.map((c) => [c.nodeId, c.to, c.reason])).toEqual([
      ['p2', 'unprobed', 'no remotingPort']
    ])
    prober.stop()
  })

  it('emits nothing after stop, even for probes that were out', async () => {
    const clock = new ManualClock()
    const { prober, changes } = watch(
      clock,
      scriptedPort(clock, { 'ns-1': { latency: 50 }, 'broker-a': { latency: 50 } })
    )
    prober.start()
    await clock.advance(10)
    prober.stop()
    await clock.advance(5000)
    expect(changes).toEqual([])
  })

  it('stop() settles the probes still out and leaves no timer behind', async () => {
    const clock = new ManualClock()
    const { prober, changes } = watch(clock, scriptedPort(clock, { 'broker-a': 'hang' }), {
      timeoutMs: 30_000
    })
    const firstRound = prober.start()
    await clock.advance(10)
    // The interval timer and broker-a's 30 s deadline.
    expect(clock.pending).toBe(2)
    prober.stop()
    expect(clock.pending).toBe(0)
    // The round settles although broker-a never answered, so nothing waits on the stopped prober.
    await firstRound
    await clock.advance(60_000)
    expect(changes.map((c) => `${c.nodeId} ${c.to}`)).toEqual(['ns-1 up'])
  })
})

describe('remotingProbePort against loopback stubs (error paths)', () => {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()?.()
  })

  async function stub(behaviour: Parameters<typeof startStubServer>[0]): Promise<StubServer> {
    const s = await startStubServer(behaviour)
    cleanups.push(() => s.close())
    return s
  }

  function realProber(address: string, kind: ProbeTarget['kind']) {
    const rpc = new RemotingRpc({ connectTimeoutMs: 300 })
    cleanups.push(() => rpc.close())
    const prober = new AttachedProber({
      targets: [{ nodeId: 'x', kind, room: 'room1', address }],
      port: remotingProbePort(rpc),
      intervalMs: 60_000,
      timeoutMs: 300,
      slowMs: 250
    })
    const changes: ObservedChange[] = []
    prober.on('change', (c) => changes.push(c))
    return { prober, changes }
  }

  it('a name server that answers QUERY_NOT_FOUND to the KV probe is up', async () => {
    const s = await stub((cmd, socket) => stubReply(socket, cmd, 22, { remark: 'No config item' }))
    const { prober, changes } = realProber(s.address, 'nameserver')
    await prober.probeOnce()
    expect(changes.map((c) => c.to)).toEqual(['up'])
    expect(s.received[0]).toMatchObject({
      code: 101,
      extFields: { namespace: 'DRSTUDIO', key: 'probe' }
    })
  })

  it('a broker that accepts and never answers is down after the timeout', async () => {
    const s = await stub(() => {})
    const { prober, changes } = realProber(s.address, 'broker')
    await prober.probeOnce()
    expect(changes).toEqual([
      expect.objectContaining({ to: 'down', reason: 'no answer within 300 ms' })
    ])
    expect(s.received[0]?.code).toBe(28)
  })

  it('a broker that sends a bad frame is down, with the frame error as reason', async () => {
    const s = await stub((_cmd, socket) => {
      const frame = encodeFrame({
        code: 0,
        language: 'JAVA',
        version: 1,
        opaque: 1,
        flag: 1,
        extFields: {}
      })
      frame.writeInt32BE(0x7fffffff, 0)
      socket.write(frame)
    })
    const { prober, changes } = realProber(s.address, 'broker')
    await prober.probeOnce()
    expect(changes[0]?.to).toBe('down')
    expect(changes[0]?.reason).toMatch(/malformed frame/)
  })

  it('nothing listening is down with the connect error', async () => {
    const s = await stub(() => {})
    const address = s.address
    await s.close()
    cleanups.pop()
    const { prober, changes } = realProber(address, 'nameserver')
    await prober.probeOnce()
    expect(changes[0]).toMatchObject({
      to: 'down',
      reason: expect.stringMatching(/cannot connect to .*ECONNREFUSED/)
    })
  })
})
