// The network lab for real: namespaces, veths, a core router, nftables, HTB and the TUN delay
// router, with tiny Node TCP/UDP agents as the nodes (no JVMs: this exercises the network only).
// Needs root, `ip` and `nft`; elsewhere the suite is skipped and says why.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NetworkPlan } from '../../main/services/network/index'
import {
  NetworkLab,
  detectNetworkSupport,
  nodeExec,
  probeNamespace
} from '../../main/services/network/index'

const ROOT = resolve(import.meta.dirname, '../..')
const AGENT = join(import.meta.dirname, 'helpers', 'net-agent.mjs')
const OWNER = join(import.meta.dirname, 'helpers', 'net-owner.ts')
const ROUTER = join(ROOT, 'out', 'native', 'drs-delay-router')

function skipReason(): string | null {
  if (process.platform !== 'linux')
    return `network namespaces are Linux-only (this is ${process.platform})`
  if (process.getuid?.() !== 0)
    return 'needs root to create network namespaces (run the suite as root)'
  for (const [cmd, fix] of [
    ['ip', 'apt-get install iproute2'],
    ['nft', 'apt-get install nftables, or npm run setup as root'],
    ['tc', 'apt-get install iproute2']
  ]) {
    if (spawnSync('which', [cmd!]).status !== 0) return `\`${cmd}\` is not installed (${fix})`
  }
  if (!existsSync(ROUTER)) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-native.mjs')], {
      stdio: 'inherit'
    })
    if (built.status !== 0) return 'the delay router could not be built (apt-get install gcc)'
  }
  return null
}

const reason = skipReason()
if (reason) console.warn(`network-lab integration tests skipped: ${reason}`)

const CUT_WAIT_MS = 1500

/** One agent ("node") inside a namespace, driven over its control port from the host. */
class Agent {
  private seq = 0
  constructor(
    readonly id: string,
    readonly ip: string,
    readonly child: ChildProcess
  ) {}

  async call<T = Record<string, unknown>>(
    req: Record<string, unknown>,
    timeoutMs = 30_000
  ): Promise<T> {
    const seq = ++this.seq
    return new Promise((resolvePromise, reject) => {
      const s = connect({ host: this.ip, port: 7100 })
      let buf = ''
      const timer = setTimeout(() => {
        s.destroy()
        reject(new Error(`agent ${this.id} did not answer ${JSON.stringify(req)}`))
      }, timeoutMs)
      s.on('data', (d) => {
        buf += d
        const nl = buf.indexOf('\n')
        if (nl < 0) return
        clearTimeout(timer)
        s.destroy()
        resolvePromise(JSON.parse(buf.slice(0, nl)) as T)
      })
      s.on('error', (e) => {
        clearTimeout(timer)
        reject(e)
      })
      s.write(JSON.stringify({ ...req, seq }) + '\n')
    })
  }

  async connectTo(peer: Agent, timeoutMs = CUT_WAIT_MS): Promise<string> {
    const r = await this.call<{ result: string }>({
      op: 'connect',
      host: peer.ip,
      port: 7000,
      timeoutMs
    })
    return r.result
  }

  /** Datagrams this agent's peer received out of `count` sent from here. */
  async udpTo(peer: Agent, count: number): Promise<number> {
    const tag = `t${Math.random().toString(36).slice(2)}`
    await this.call({ op: 'udp', host: peer.ip, port: 7001, tag, count })
    await new Promise((r) => setTimeout(r, 200))
    return (await peer.call<{ count: number }>({ op: 'udpCount', tag })).count
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

function startAgent(lab: NetworkLab, id: string): Promise<Agent> {
  const [cmd, ...args] = lab.spawnPrefix(id)
  const child = spawn(cmd!, [...args, process.execPath, AGENT], {
    stdio: ['ignore', 'pipe', 'inherit']
  })
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', () => resolvePromise(new Agent(id, lab.addressOf(id), child)))
  })
}

function sh(...argv: string[]): string {
  return spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' }).stdout ?? ''
}

/** A zombie (killed, not yet reaped by its parent or init) counts as dead. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

async function waitDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100))
  return !alive(pid)
}

/** Every trace of an instance on the machine, for the "leaves nothing" checks. */
function traces(instance: number, slice: string): string[] {
  const found: string[] = []
  for (const ns of sh('ip', 'netns', 'list').split('\n')) {
    if (ns.startsWith(`drs-${instance}-`)) found.push(`netns ${ns.split(' ')[0]}`)
  }
  if (sh('ip', 'link', 'show').includes(`drs${instance}-host`))
    found.push(`link drs${instance}-host`)
  if (sh('ip', 'route', 'show').includes(slice)) found.push(`route ${slice}`)
  if (existsSync(`/run/drstudio/net/${instance}.json`)) found.push('owner record')
  return found
}

describe.skipIf(reason !== null)(`network lab${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const lab = new NetworkLab({ delayRouter: ROUTER })
  let plan: NetworkPlan
  const agents = new Map<string, Agent>()
  const ag = (id: string): Agent => agents.get(id)!

  beforeAll(async () => {
    await lab.sweep()
    plan = await lab.plan({
      rooms: ['room1', 'room2', 'room3'],
      nodes: [
        { id: 'a1', room: 'room1' },
        { id: 'a2', room: 'room1' },
        { id: 'a3', room: 'room1' },
        { id: 'b1', room: 'room2' },
        { id: 'b2', room: 'room2' },
        { id: 'c1', room: 'room3' }
      ]
    })
    await lab.up(plan)
    for (const n of plan.nodes) agents.set(n.id, await startAgent(lab, n.id))
  })

  afterAll(async () => {
    for (const a of agents.values()) a.child.kill('SIGKILL')
    await lab.down()
  })

  it('gives each node its own address in its room subnet and routes nothing off the machine', async () => {
    expect(lab.addressOf('a1')).not.toBe(lab.addressOf('a2'))
    expect(plan.rooms.map((r) => r.subnet)).toHaveLength(3)
    expect(await ag('a1').connectTo(ag('a2'))).toBe('connected')
    expect(await ag('a1').connectTo(ag('b1'))).toBe('connected')
    expect(await ag('c1').connectTo(ag('b2'))).toBe('connected')
    const offMachine = await ag('a1').call<{ result: string }>({
      op: 'connect',
      host: '192.0.2.1',
      port: 80,
      timeoutMs: CUT_WAIT_MS
    })
    expect(offMachine.result).toBe('ENETUNREACH')
    // The agents answer on their own addresses: a process in a node namespace uses that address.
    expect(
      sh('ip', 'netns', 'exec', plan.nodes[0]!.ns, 'ip', '-4', '-o', 'addr', 'show', 'eth0')
    ).toContain(`${lab.addressOf('a1')}/24`)
  })

  it('isolate cuts a room from every other room, not inside it, not from the engine', async () => {
    const f = await lab.apply({ action: 'isolate', target: 'room1' })
    expect(await ag('a1').connectTo(ag('b1'))).toBe('timeout')
    expect(await ag('c1').connectTo(ag('a2'))).toBe('timeout')
    expect(await ag('a1').connectTo(ag('a2'))).toBe('connected')
    expect(await ag('b1').connectTo(ag('c1'))).toBe('connected')
    expect(lab.links().find((l) => l.key === 'room1~room3')!.ab.blocked).toBe('drop')
    expect(await lab.heal({ id: f.id })).toHaveLength(1)
    expect(await ag('a1').connectTo(ag('b1'))).toBe('connected')
  })

  it('partition drop makes connects wait out the timeout; reject fails them and live streams at once', async () => {
    await lab.apply({ action: 'partition', target: 'room1', peer: 'room2', mode: 'drop' })
    expect(await ag('a1').connectTo(ag('b1'))).toBe('timeout')
    expect(await ag('b2').connectTo(ag('a3'))).toBe('timeout')
    expect(await ag('a1').connectTo(ag('c1'))).toBe('connected')
    await lab.heal()

    await ag('a1').call({ op: 'open', id: 'live', host: ag('b1').ip, port: 7000 })
    expect(
      (await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'live', count: 3 })).rtts
    ).toHaveLength(3)
    await lab.apply({ action: 'partition', target: 'room1', peer: 'room2', mode: 'reject' })
    // A long client timeout: the answer must come from the reject, not from giving up.
    expect(await ag('a1').connectTo(ag('b1'), 20_000)).toBe('ECONNREFUSED')
    expect(await ag('b1').connectTo(ag('a1'), 20_000)).toBe('ECONNREFUSED')
    const live = await ag('a1').call<{ error?: string }>({
      op: 'rtt',
      id: 'live',
      count: 1,
      timeoutMs: 20_000
    })
    expect(live.error).toBe('ECONNRESET')
    expect(await ag('b1').connectTo(ag('c1'))).toBe('connected')
    await lab.heal()
    expect(await ag('a1').connectTo(ag('b1'))).toBe('connected')
  })

  it('one-way partitions stop one direction only', async () => {
    await lab.apply({ action: 'partition', target: 'room1', peer: 'room2', direction: 'to' })
    expect(await ag('a1').udpTo(ag('b1'), 20)).toBe(0)
    expect(await ag('b1').udpTo(ag('a1'), 20)).toBe(20)
    await lab.heal()
    await lab.apply({
      action: 'partition',
      target: 'room1',
      peer: 'room2',
      direction: 'from',
      mode: 'reject'
    })
    expect(await ag('a1').udpTo(ag('b1'), 20)).toBe(20)
    expect(await ag('b1').udpTo(ag('a1'), 20)).toBe(0)
    expect(await ag('b1').connectTo(ag('a1'), 20_000)).toBe('ECONNREFUSED')
    const link = lab.links().find((l) => l.key === 'room1~room2')!
    expect([link.ab.blocked, link.ba.blocked]).toEqual([null, 'reject'])
    await lab.heal()
  })

  it('node-level partitions are partial: one node pair cut, its neighbours untouched', async () => {
    const cross = await lab.apply({ action: 'partition', target: 'a1', peer: 'b1' })
    expect(cross.scope).toBe('node')
    expect(await ag('a1').connectTo(ag('b1'))).toBe('timeout')
    expect(await ag('b1').connectTo(ag('a1'))).toBe('timeout')
    expect(await ag('a2').connectTo(ag('b1'))).toBe('connected')
    expect(await ag('a1').connectTo(ag('b2'))).toBe('connected')

    await lab.apply({ action: 'partition', target: 'a1', peer: 'a2', mode: 'reject' })
    expect(await ag('a1').connectTo(ag('a2'), 20_000)).toBe('ECONNREFUSED')
    expect(await ag('a3').connectTo(ag('a2'))).toBe('connected')

    const roomWide = await lab.apply({
      action: 'partition',
      target: 'c1',
      peer: 'room2',
      direction: 'from'
    })
    expect(await ag('b2').udpTo(ag('c1'), 20)).toBe(0)
    expect(await ag('c1').udpTo(ag('b2'), 20)).toBe(20)
    await lab.heal({ id: roomWide.id })

    const isolated = await lab.apply({ action: 'isolate', target: 'a3', mode: 'reject' })
    expect(await ag('a3').connectTo(ag('a2'), 20_000)).toBe('ECONNREFUSED')
    expect(await ag('a3').connectTo(ag('c1'), 20_000)).toBe('ECONNREFUSED')
    expect((await ag('a3').call<{ count: number }>({ op: 'udpCount', tag: 'none' })).count).toBe(0)
    await lab.heal({ id: isolated.id })

    // Heal one pair: the other node cut stays.
    expect((await lab.heal({ target: 'a2', peer: 'a1' })).map((f) => f.fault.target)).toEqual([
      'a1'
    ])
    expect(await ag('a1').connectTo(ag('a2'))).toBe('connected')
    expect(await ag('a1').connectTo(ag('b1'))).toBe('timeout')
    expect(lab.activeFaults().map((f) => f.id)).toEqual([cross.id])
    await lab.heal()
    expect(await ag('a1').connectTo(ag('b1'))).toBe('connected')
  })

  it('delay adds latency both ways, to live connections too, and heals back', async () => {
    await ag('a1').call({ op: 'open', id: 'd', host: ag('b1').ip, port: 7000 })
    await ag('a1').call({ op: 'open', id: 'near', host: ag('a2').ip, port: 7000 })
    const before = median(
      (await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'd', count: 10 })).rtts
    )
    await lab.apply({ action: 'delay', target: 'room1', peer: 'room2', latencyMs: 50 })
    const during = (await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'd', count: 10 })).rtts
    expect(Math.min(...during)).toBeGreaterThanOrEqual(100)
    expect(median(during)).toBeGreaterThan(before + 90)
    // A fresh connection and the reverse direction see it as well; the room's own LAN does not.
    await ag('b2').call({ op: 'open', id: 'back', host: ag('a3').ip, port: 7000 })
    expect(
      Math.min(
        ...(await ag('b2').call<{ rtts: number[] }>({ op: 'rtt', id: 'back', count: 3 })).rtts
      )
    ).toBeGreaterThanOrEqual(100)
    expect(
      median((await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'near', count: 5 })).rtts)
    ).toBeLessThan(50)

    await lab.apply({
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      latencyMs: 40,
      jitterMs: 10
    })
    const jittered = (await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'd', count: 10 }))
      .rtts
    expect(Math.min(...jittered)).toBeGreaterThanOrEqual(60)
    expect(lab.links().find((l) => l.key === 'room1~room2')!.ab).toMatchObject({
      latencyMs: 40,
      jitterMs: 10
    })

    await lab.heal({ target: 'room2' })
    expect(
      median((await ag('a1').call<{ rtts: number[] }>({ op: 'rtt', id: 'd', count: 10 })).rtts)
    ).toBeLessThan(50)
    expect(sh('ip', '-n', plan.core.ns, 'rule', 'show')).not.toContain('lookup 100')
  })

  it('loss drops a share of packets in a generous band around the asked rate', async () => {
    await lab.apply({
      action: 'loss',
      target: 'room1',
      peer: 'room3',
      lossPct: 30,
      direction: 'to'
    })
    const got = await ag('a1').udpTo(ag('c1'), 1000)
    expect(got / 1000).toBeGreaterThan(0.6)
    expect(got / 1000).toBeLessThan(0.8)
    expect(await ag('c1').udpTo(ag('a1'), 200)).toBe(200)
    await lab.heal()
    expect(await ag('a1').udpTo(ag('c1'), 200)).toBe(200)
  })

  it('bandwidth caps a bulk transfer between the rooms and only between them', async () => {
    const bytes = 2_000_000
    const open = await ag('b1').call<{ bytes: number; ms: number }>({
      op: 'bulk',
      host: ag('c1').ip,
      port: 7002,
      bytes,
      timeoutMs: 30_000
    })
    await lab.apply({ action: 'bandwidth', target: 'room2', peer: 'room3', mbit: 8 })
    const capped = await ag('b1').call<{ bytes: number; ms: number }>({
      op: 'bulk',
      host: ag('c1').ip,
      port: 7002,
      bytes,
      timeoutMs: 30_000
    })
    const other = await ag('a1').call<{ bytes: number; ms: number }>({
      op: 'bulk',
      host: ag('c1').ip,
      port: 7002,
      bytes,
      timeoutMs: 30_000
    })
    const mbit = (r: { bytes: number; ms: number }): number => (r.bytes * 8) / r.ms / 1000
    expect(capped.bytes).toBeGreaterThanOrEqual(bytes)
    expect(mbit(capped)).toBeLessThan(8 * 1.25)
    expect(mbit(open)).toBeGreaterThan(mbit(capped) * 5)
    expect(mbit(other)).toBeGreaterThan(mbit(capped) * 5)
    await lab.heal()
    expect(sh('tc', '-n', plan.core.ns, 'qdisc', 'show')).not.toContain('htb')
  })

  it('heal of one target leaves the others; heal() clears everything', async () => {
    await lab.apply({ action: 'partition', target: 'room1', peer: 'room2' })
    await lab.apply({ action: 'partition', target: 'room2', peer: 'room3', mode: 'reject' })
    await lab.apply({ action: 'loss', target: 'room1', peer: 'room3', lossPct: 100 })
    expect((await lab.heal({ target: 'room3', peer: 'room2' })).length).toBe(1)
    expect(await ag('b1').connectTo(ag('c1'))).toBe('connected')
    expect(await ag('a1').connectTo(ag('b1'))).toBe('timeout')
    expect(await ag('a1').connectTo(ag('c1'))).toBe('timeout')
    expect((await lab.heal()).length).toBe(2)
    expect(lab.activeFaults()).toEqual([])
    expect(await ag('a1').connectTo(ag('b1'))).toBe('connected')
    expect(await ag('a1').connectTo(ag('c1'))).toBe('connected')
    expect(sh('ip', 'netns', 'exec', plan.core.ns, 'nft', 'list', 'ruleset')).toBe('')
  })

  it('down() leaves no namespace, veth, route, nft table or process', async () => {
    await lab.apply({ action: 'delay', target: 'room1', peer: 'room3', latencyMs: 5 })
    await lab.apply({ action: 'partition', target: 'a1', peer: 'a2' })
    const own = lab.ownPids()
    expect(own).toHaveLength(1)
    const agentPids = [...agents.values()].map((a) => a.child.pid!)
    expect(traces(plan.instance, plan.slice).length).toBeGreaterThan(0)
    await lab.down()
    agents.clear()
    expect(traces(plan.instance, plan.slice)).toEqual([])
    expect(sh('nft', 'list', 'tables')).not.toContain('drstudio')
    for (const pid of [...own, ...agentPids]) expect(await waitDead(pid), `pid ${pid}`).toBe(true)
  })
})

describe.skipIf(reason !== null)(
  `network lab clean-up${reason ? ` (skipped: ${reason})` : ''}`,
  () => {
    it('detects support here and leaves no probe namespace', async () => {
      const support = await detectNetworkSupport(nodeExec, { delayRouter: ROUTER })
      expect(support).toMatchObject({ ok: true })
      if (support.ok) expect(['netem', 'tun']).toContain(support.delay.mechanism)
      expect(sh('ip', 'netns', 'list')).not.toContain(probeNamespace(process.pid))
    })

    it('refuses a slice that clashes with a route on the machine, naming it and the fix, leaving nothing', async () => {
      const lab = new NetworkLab({ delayRouter: ROUTER })
      const plan = await lab.plan({ rooms: ['room1'], nodes: [{ id: 'n1', room: 'room1' }] })
      const clash = plan.rooms[0]!.subnet
      // A blackhole route in the host namespace: sends nothing anywhere, only occupies the prefix.
      expect(spawnSync('ip', ['route', 'add', 'blackhole', clash]).status).toBe(0)
      try {
        await expect(lab.up(plan)).rejects.toThrow(
          new RegExp(`route ${clash.replace(/\./g, '\\.')}.*DRSTUDIO_NET_RANGE`)
        )
      } finally {
        spawnSync('ip', ['route', 'del', 'blackhole', clash])
      }
      expect(traces(plan.instance, plan.slice)).toEqual([])
    })

    it('sweep() removes a lab whose owner was SIGKILLed, processes included', async () => {
      const owner = spawn(process.execPath, ['--import', 'tsx', OWNER, ROUTER], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit']
      })
      const info = await new Promise<{
        instance: number
        agentPid: number
        ownPids: number[]
        slice: string
      }>((resolvePromise, reject) => {
        let buf = ''
        owner.stdout!.on('data', (d) => {
          buf += d
          if (buf.includes('\n')) resolvePromise(JSON.parse(buf.split('\n')[0]!))
        })
        owner.once('exit', (code) => reject(new Error(`owner exited early with ${code}`)))
      })
      owner.kill('SIGKILL')
      await new Promise((r) => owner.once('exit', r))
      expect(traces(info.instance, info.slice).length).toBeGreaterThan(0)
      expect(alive(info.agentPid)).toBe(true)

      const lab = new NetworkLab({ delayRouter: ROUTER })
      const swept = await lab.sweep()
      expect(swept.instances).toContain(info.instance)
      expect(traces(info.instance, info.slice)).toEqual([])
      for (const pid of [info.agentPid, ...info.ownPids])
        expect(await waitDead(pid), `pid ${pid}`).toBe(true)
    })
  }
)
