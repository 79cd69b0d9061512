import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Topology } from '../../../common/topology/schema'
import type { SandboxPort } from '../engine/engine'
import { EngineEvents } from '../engine/events'
import { forwardSandboxEvents } from './engine-bridge'
import { topologySchema } from '../../../common/topology/schema'
import type { SandboxError } from './errors'
import { NodeBootError, PortBusyError } from './errors'
import { readPidFile, writePidFile } from './orphans'
import type { ProcFs } from './procfs'
import type { ExitInfo, ProcessSpawner, SpawnRequest } from './processes'
import type { NodeStatus, SandboxOptions } from './sandbox'
import { Sandbox } from './sandbox'
import { startStubServer, stubReply } from '../remoting/stub-server'

interface FakeProc {
  pid: number
  req: SpawnRequest
  alive: boolean
  paused: boolean
  signals: NodeJS.Signals[]
  exit: (info: ExitInfo) => void
}

/** What a fake process does after spawning. */
type Behaviour = { boot: true } | { exitCode: number; lines: string[] } | { hang: true }

/** A process table in memory: boots by appending RocketMQ's boot line to the log file. */
class FakeSpawner implements ProcessSpawner {
  readonly procs: FakeProc[] = []
  behaviour: (req: SpawnRequest) => Behaviour = () => ({ boot: true })
  /** Nodes whose process ignores SIGTERM (a stop that hangs). */
  readonly ignoresTerm = new Set<string>()
  private nextPid = 5000

  spawn(req: SpawnRequest) {
    const pid = this.nextPid++
    let exit!: (info: ExitInfo) => void
    const exited = new Promise<ExitInfo>((r) => (exit = r))
    const proc: FakeProc = { pid, req, alive: true, paused: false, signals: [], exit }
    proc.exit = (info) => {
      proc.alive = false
      exit(info)
    }
    this.procs.push(proc)
    const b = this.behaviour(req)
    setTimeout(() => {
      if (!proc.alive) return
      if ('boot' in b) appendFileSync(req.logFile, `${bootLine(req)}\n`)
      else if ('exitCode' in b) {
        appendFileSync(req.logFile, b.lines.join('\n') + '\n')
        proc.exit({ code: b.exitCode, signal: null })
      }
    }, 5)
    return { pid, exited }
  }

  signal(pid: number, signal: NodeJS.Signals): boolean {
    const p = this.procs.find((x) => x.pid === pid)
    if (!p || !p.alive) return false
    p.signals.push(signal)
    if (signal === 'SIGSTOP') p.paused = true
    if (signal === 'SIGCONT') p.paused = false
    if (signal === 'SIGKILL') p.exit({ code: null, signal: 'SIGKILL' })
    if (
      signal === 'SIGTERM' &&
      [...this.ignoresTerm].some((id) => p.req.logFile.includes(`/${id}/`))
    )
      return true
    if (signal === 'SIGTERM' && !p.paused) setTimeout(() => p.exit({ code: 143, signal: null }), 5)
    if (signal === 'SIGCONT' && p.signals.includes('SIGTERM')) p.exit({ code: 143, signal: null })
    return true
  }

  byNode(nodeId: string): FakeProc[] {
    return this.procs.filter((p) => p.req.logFile.includes(`/${nodeId}/`))
  }

  live(): FakeProc[] {
    return this.procs.filter((p) => p.alive)
  }
}

async function waitFor(cond: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}

function bootLine(req: SpawnRequest): string {
  const main = req.args.find((a) => a.startsWith('org.apache.rocketmq.'))
  // NamesrvStartup prints the second line when it embeds a controller; harmless otherwise.
  if (main?.endsWith('NamesrvStartup'))
    return 'The Name Server boot success. serializeType=JSON\nThe ControllerManager boot success. serializeType=JSON'
  if (main?.endsWith('ControllerStartup'))
    return 'The Controller Server boot success. serializeType=JSON'
  if (main?.endsWith('BrokerStartup')) return 'The broker[broker-a, 127.0.0.1:1] boot success.'
  if (main?.endsWith('ProxyStartup')) return 'Mon Jan 01 rocketmq-proxy startup successfully'
  return 'management node listening'
}

/** The parts of the raw topology JSON the tests edit before parsing. */
interface RawTopology {
  settings: { namesrvDiscovery: string }
  rooms: { nameServers: Record<string, unknown>[]; managementNodes: unknown[] }[]
}

function twoRooms(mutate?: (raw: RawTopology) => void): Topology {
  const raw = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../../resources/topologies/two-rooms.json'), 'utf8')
  )
  mutate?.(raw)
  return topologySchema.parse(raw)
}

describe('Sandbox (fake processes)', () => {
  let dataDir: string
  let spawner: FakeSpawner
  let busy: Set<number>
  let sandbox: Sandbox
  let events: NodeStatus[]
  /** What the fake management node with this node id lists at launch; a missing entry refuses. */
  let listed: Map<string, string[]>
  let asked: string[]

  const procFs: ProcFs = {
    cmdline: () => undefined,
    state: (pid) => {
      const p = spawner.procs.find((x) => x.pid === pid)
      return p?.alive ? (p.paused ? 'T' : 'S') : undefined
    },
    rssKb: () => 0,
    children: () => []
  }

  const make = (extra: Partial<SandboxOptions> = {}): Sandbox => {
    const sb = new Sandbox({
      dataDir,
      repoRoot: '/repo',
      spawner,
      procFs,
      portProbe: { isFree: async (p) => !busy.has(p) },
      net: { tcp: async () => true, httpGet: async () => ({ status: 200, body: 'ok' }) },
      findJava: () => ({ path: '/jdk/bin/java', version: '17.0.15', major: 17, source: 'PATH' }),
      locateRocketmq: () => ({ dir: '/lib', version: '5.3.3', source: 'repo' }),
      registrationProbe: { brokersOn: async () => [] },
      trackRegistration: false,
      managementCommand: (file) => ({ command: '/usr/bin/node', args: ['standalone.ts', file] }),
      managementNameServers: {
        nameServersOf: async (address) => {
          const id = sandbox.status().nodes.find((n) => n.address === address)?.nodeId ?? address
          asked.push(id)
          const list = listed.get(id)
          if (!list) throw new Error(`connect ECONNREFUSED ${address}`)
          return list
        }
      },
      installExitHandlers: false,
      stopGraceMs: 200,
      ...extra
    })
    sb.on('node-state', (s) => events.push(s))
    return sb
  }

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'drstudio-sandbox-unit-'))
    spawner = new FakeSpawner()
    busy = new Set()
    events = []
    listed = new Map()
    asked = []
    sandbox = make()
  })

  afterEach(async () => {
    await sandbox.stop({ force: true })
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('controller mode: quorum first, the preferred replicas next, the rest once masters exist', async () => {
    const raw = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../../resources/topologies/three-rooms-controller.json'),
        'utf8'
      )
    )
    raw.rooms[2].nameServers[0] = { id: 'ns-3' }
    raw.rooms[2].controllers = [{ id: 'ctl-3' }]
    // Room 3's management node answers: its replicas launch with the name servers it lists.
    listed.set('mgmt-3', ['10.9.0.3:9876', '10.9.0.1:9876'])
    const probed: string[] = []
    const masters: Record<string, string> = {}
    const sends: Record<string, number> = {}
    /** Index into `events` at the first write acknowledged with a group's whole SyncStateSet. */
    const readyAt: Record<string, number> = {}
    const live = (g: string) =>
      sandbox
        .status()
        .nodes.filter(
          (n) => n.nodeId.startsWith(`${g}-`) && ['electing', 'syncing', 'up'].includes(n.state)
        )
    const inSyncOf = (g: string): string[] =>
      (sends[g] ?? 0) < 3 ? [masters[g]!] : live(g).map((n) => n.address!)
    sandbox = make({
      controllerProbe: {
        metadata: async (address) => {
          probed.push(address)
          const leader = sandbox.controllers()[0]!.address
          return {
            group: 'drstudio',
            leaderId: 'n0',
            leaderAddress: leader,
            isLeader: address === leader,
            peers: []
          }
        },
        // The first replica of each group to be up is master, as the controllers do; the others
        // join its SyncStateSet after a few writes.
        syncStateData: async (_leader, groups) =>
          Object.fromEntries(
            groups.flatMap((g) => {
              const up = live(g)[0]
              masters[g] ??= up?.address ?? ''
              const replica = (a: string) => ({
                brokerName: g,
                brokerId: 1,
                brokerAddress: a,
                alive: true
              })
              return up
                ? [
                    [
                      g,
                      {
                        masterBrokerId: 1,
                        masterAddress: masters[g]!,
                        masterEpoch: 1,
                        syncStateSetEpoch: 1,
                        inSyncReplicas: inSyncOf(g).map(replica),
                        notInSyncReplicas: []
                      }
                    ]
                  ]
                : []
            })
          )
      },
      // The first write finds the master not acting yet; later ones are acknowledged.
      writeProbe: {
        send: async (address, g) => {
          expect(address).toBe(masters[g])
          sends[g] = (sends[g] ?? 0) + 1
          if (sends[g] === 1) return { kind: 'refused', reason: 'code 1: not master yet' }
          if (inSyncOf(g).length === 3) readyAt[g] ??= events.length
          return { kind: 'acked' }
        }
      }
    })
    const status = await sandbox.start(topologySchema.parse(raw))
    const order = spawner.procs.map((p) => p.req.logFile.split('/').at(-2)!)
    expect(order.slice(0, 7).sort()).toEqual([
      'ctl-3',
      'mgmt-1',
      'mgmt-2',
      'mgmt-3',
      'ns-1',
      'ns-2',
      'ns-3'
    ])
    // broker-a prefers room 1 and broker-b room 2: those boot (and become master) first.
    expect(order.slice(7, 9).sort()).toEqual(['broker-a-1', 'broker-b-2'])
    expect(order.slice(9).sort()).toEqual(['broker-a-2', 'broker-a-3', 'broker-b-1', 'broker-b-3'])
    expect(probed.length).toBeGreaterThan(0)

    const quorum = sandbox.controllers()
    expect(quorum.map((c) => [c.nodeId, c.selfId, c.embedded])).toEqual([
      ['ns-1', 'n0', true],
      ['ns-2', 'n1', true],
      ['ctl-3', 'n2', false]
    ])
    const ns1 = status.nodes.find((n) => n.nodeId === 'ns-1')!.address!
    // The embedded controller has its own port next to the name server's.
    expect(quorum[0]!.address).not.toBe(ns1)
    const peers = quorum.map((c) => `${c.selfId}-${c.address}`).join(';')
    const nsConf = readFileSync(join(status.runDir!, 'ns-1', 'namesrv.properties'), 'utf8')
    expect(nsConf).toContain('enableControllerInNamesrv=true')
    expect(nsConf).toContain(`controllerDLegerPeers=${peers}`)
    expect(nsConf).toContain('controllerDLegerSelfId=n0')
    const ctlConf = readFileSync(join(status.runDir!, 'ctl-3', 'controller.properties'), 'utf8')
    expect(ctlConf).toContain('controllerDLegerSelfId=n2')
    expect(ctlConf).toContain(`listenPort=${quorum[2]!.address.split(':')[1]}`)
    expect(spawner.byNode('ctl-3')[0]!.req.args).toContain(
      'org.apache.rocketmq.controller.ControllerStartup'
    )

    const conf = readFileSync(join(status.runDir!, 'broker-a-2', 'broker.conf'), 'utf8')
    expect(conf).toContain('brokerId=-1')
    expect(conf).toContain('enableControllerMode=true')
    expect(conf).toContain(`controllerAddr=${quorum.map((c) => c.address).join(';')}`)
    expect(conf).toContain('allAckInSyncStateSet=true')
    expect(conf).toContain('brokerElectionPriority=2')
    expect(conf).not.toContain('enableSlaveActingMaster')
    // mgmt-2 did not answer: broker-a-2 fetches the list itself (10 s after boot); broker-a-3 was
    // told at launch, so it registers at boot and learns its master's HA address at once.
    expect(conf).toContain('fetchNamesrvAddrByAddressServer=true')
    const conf3 = readFileSync(join(status.runDir!, 'broker-a-3', 'broker.conf'), 'utf8')
    expect(conf3).toContain('namesrvAddr=10.9.0.3:9876;10.9.0.1:9876')
    expect(conf3).not.toContain('fetchNamesrvAddrByAddressServer')
    expect(spawner.byNode('broker-a-2')[0]!.req.env.ROCKETMQ_ZONE).toBe('room2')
    const mgmt = JSON.parse(readFileSync(join(status.runDir!, 'mgmt-1', 'management.json'), 'utf8'))
    expect(mgmt.brokers.map((b: { id: string }) => b.id)).toHaveLength(6)
    // Ready means ready: every replica went electing → syncing → up, and up only after its
    // group's master acknowledged a write with the whole SyncStateSet.
    for (const g of ['broker-a', 'broker-b']) {
      for (const id of [1, 2, 3].map((i) => `${g}-${i}`)) {
        const mine = events.filter((e) => e.nodeId === id).map((e) => e.state)
        expect(mine.filter((st, i) => st !== mine[i - 1])).toEqual([
          'stopped',
          'starting',
          'electing',
          'syncing',
          'up'
        ])
        expect(events.findIndex((e) => e.nodeId === id && e.state === 'up')).toBeGreaterThanOrEqual(
          readyAt[g]!
        )
        const node = status.nodes.find((n) => n.nodeId === id)!
        expect(node.state).toBe('up')
        expect(node.readyInMs).toBeGreaterThan(0)
        expect(node.detail).toMatch(
          new RegExp(`^${g} ready in \\d+\\.\\d s: master ${g}-\\d acknowledged a write`)
        )
      }
    }
    // A replica restarted during a run is followed in the background: act() returns once its JVM
    // is up (electing), and it goes up once the master acknowledges a write with it in sync.
    const restarted = await sandbox.restartNode('broker-a-2')
    expect(restarted.state).toBe('electing')
    expect(restarted.readyInMs).toBeUndefined()
    await waitFor(() => sandbox.node('broker-a-2').state === 'up', 3000)
    expect(sandbox.node('broker-a-2').detail).toMatch(/^broker-a ready in \d+\.\d s/)
  })

  it('boots name servers and management nodes before brokers, and leaves topics to the runs', async () => {
    const status = await sandbox.start(twoRooms(), 42)
    expect(status.running).toBe(true)
    expect(status.runId).toBe(42)
    expect(status.runDir).toMatch(/sandbox\/\d{8}-\d{6}-r42$/)
    expect(status.nodes.map((n) => [n.nodeId, n.state])).toEqual([
      ['ns-1', 'up'],
      ['broker-1', 'up'],
      ['mgmt-1', 'up'],
      ['ns-2', 'up'],
      ['broker-2', 'up'],
      ['mgmt-2', 'up']
    ])
    const order = spawner.procs.map((p) => p.req.logFile.split('/').at(-2))
    expect(order.slice(0, 4).sort()).toEqual(['mgmt-1', 'mgmt-2', 'ns-1', 'ns-2'])
    expect(order.slice(4).sort()).toEqual(['broker-1', 'broker-2'])

    // Neither fake management node answered: the brokers fetch from it themselves.
    const conf = readFileSync(join(status.runDir!, 'broker-2', 'broker.conf'), 'utf8')
    const mgmt2 = status.nodes.find((n) => n.nodeId === 'mgmt-2')!.address
    expect(conf).toContain(`rmqAddressServerDomain=${mgmt2}`)
    expect(conf).toContain('fetchNamesrvAddrByAddressServer=true')
    expect(conf).not.toContain('namesrvAddr=')
    const broker2 = spawner.byNode('broker-2')[0]!
    expect(broker2.req.env.ROCKETMQ_ZONE).toBe('room2')
    expect(broker2.req.args).toContain(`-Duser.home=${join(status.runDir!, 'broker-2')}`)

    const mgmtConfig = JSON.parse(
      readFileSync(join(status.runDir!, 'mgmt-1', 'management.json'), 'utf8')
    )
    expect(mgmtConfig).toMatchObject({
      id: 'mgmt-1',
      room: 'room1',
      host: '127.0.0.1',
      probeIntervalMs: 1000
    })
    expect(mgmtConfig.nameServers.map((n: { id: string }) => n.id)).toEqual(['ns-1', 'ns-2'])

    expect(readPidFile(join(dataDir, 'sandbox', 'pids.json'))).toHaveLength(6)
    expect(sandbox.readLog('ns-1', 4096).text).toContain('The Name Server boot success')
    expect(sandbox.commandLine('ns-1')).toContain('org.apache.rocketmq.namesrv.NamesrvStartup -c ')
  })

  it('launches each broker with the name servers its room’s management node lists', async () => {
    const progress: string[] = []
    sandbox.on('progress', (p) => progress.push(`${p.nodeId}: ${p.message}`))
    // mgmt-1 answers; mgmt-2 refuses, so broker-2 falls back to RocketMQ's own fetch.
    listed.set('mgmt-1', ['10.9.0.1:9876', '10.9.0.2:9876'])
    const status = await sandbox.start(twoRooms(), 8)
    expect(asked.sort()).toEqual(['mgmt-1', 'mgmt-2'])
    const mgmt2 = status.nodes.find((n) => n.nodeId === 'mgmt-2')!.address!
    const conf1 = readFileSync(join(status.runDir!, 'broker-1', 'broker.conf'), 'utf8')
    expect(conf1).toContain('namesrvAddr=10.9.0.1:9876;10.9.0.2:9876')
    expect(conf1).not.toContain('fetchNamesrvAddrByAddressServer')
    const conf2 = readFileSync(join(status.runDir!, 'broker-2', 'broker.conf'), 'utf8')
    expect(conf2).toContain(`rmqAddressServerDomain=${mgmt2}`)
    expect(progress).toContain(
      'broker-1: name servers from mgmt-1: 10.9.0.1:9876;10.9.0.2:9876 (registers with them at boot)'
    )
    expect(progress).toContain(
      `broker-2: mgmt-2 did not list the name servers (connect ECONNREFUSED ${mgmt2}); the broker fetches them from it itself, 10 s after boot`
    )
    // A broker is spawned only after its management node is up and has been asked.
    const order = spawner.procs.map((p) => p.req.logFile.split('/').at(-2))
    expect(order.indexOf('broker-1')).toBeGreaterThan(order.indexOf('mgmt-1'))
    expect(order.indexOf('broker-2')).toBeGreaterThan(order.indexOf('mgmt-2'))
  })
  it('boots proxies after the brokers, zone-pinned unless zoneMode is false, and tells management about them', async () => {
    const raw = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../../resources/topologies/two-rooms-proxies.json'),
        'utf8'
      )
    )
    // Proxies wait until every name server lists every broker.
    const brokers = (): string[] =>
      sandbox
        .status()
        .nodes.filter((n) => n.kind === 'broker')
        .map((n) => n.address!)
    sandbox = make({ registrationProbe: { brokersOn: async () => brokers() } })
    const status = await sandbox.start(topologySchema.parse(raw))
    const order = spawner.procs.map((p) => p.req.logFile.split('/').at(-2))
    expect(order.slice(6).sort()).toEqual(['proxy-1', 'proxy-2', 'proxy-plain'])
    expect(spawner.byNode('proxy-1')[0]!.req.env).toMatchObject({
      ROCKETMQ_ZONE: 'room1',
      ROCKETMQ_ZONE_MODE: 'true'
    })
    expect(spawner.byNode('proxy-2')[0]!.req.env).toMatchObject({
      ROCKETMQ_ZONE: 'room2',
      ROCKETMQ_ZONE_MODE: 'true'
    })
    const plainEnv = spawner.byNode('proxy-plain')[0]!.req.env
    expect(plainEnv.ROCKETMQ_ZONE).toBeUndefined()
    expect(plainEnv.ROCKETMQ_ZONE_MODE).toBeUndefined()
    expect(sandbox.commandLine('proxy-1')).toMatch(
      /^ROCKETMQ_ZONE=room1 ROCKETMQ_ZONE_MODE=true .*ProxyStartup -pc \S+rmq-proxy\.json -pm cluster$/
    )

    const proxyJson = JSON.parse(
      readFileSync(join(status.runDir!, 'proxy-1', 'rmq-proxy.json'), 'utf8')
    )
    const mgmtConfig = JSON.parse(
      readFileSync(join(status.runDir!, 'mgmt-2', 'management.json'), 'utf8')
    )
    expect(mgmtConfig.proxies).toEqual([
      {
        id: 'proxy-1',
        room: 'room1',
        address: sandbox.node('proxy-1').address,
        remotingAddress: `127.0.0.1:${proxyJson.remotingListenPort}`,
        zoneMode: true
      },
      expect.objectContaining({ id: 'proxy-plain', room: 'room1', zoneMode: false }),
      expect.objectContaining({ id: 'proxy-2', room: 'room2', zoneMode: true })
    ])
    expect(sandbox.node('proxy-1').address).toBe(`127.0.0.1:${proxyJson.grpcServerPort}`)
  })

  it('retries a proxy that exits at boot on a name-server timeout, but not on other failures', async () => {
    const raw = JSON.parse(
      readFileSync(
        join(import.meta.dirname, '../../../resources/topologies/two-rooms-proxies.json'),
        'utf8'
      )
    )
    const brokers = (): string[] =>
      sandbox
        .status()
        .nodes.filter((n) => n.kind === 'broker')
        .map((n) => n.address!)
    sandbox = make({ registrationProbe: { brokersOn: async () => brokers() } })
    let flaky = 1
    spawner.behaviour = (req) =>
      req.logFile.includes('/proxy-2/') && flaky-- > 0
        ? {
            exitCode: 1,
            lines: [
              'org.apache.rocketmq.remoting.exception.RemotingTimeoutException: wait response timeout',
              'org.apache.rocketmq.proxy.common.ProxyException: create system broadcast topic DefaultHeartBeatSyncerTopic failed on cluster DrCluster'
            ]
          }
        : { boot: true }
    await sandbox.start(topologySchema.parse(raw))
    expect(sandbox.node('proxy-2').state).toBe('up')
    expect(spawner.byNode('proxy-2')).toHaveLength(2)

    spawner.behaviour = (req) =>
      req.logFile.includes('/proxy-plain/')
        ? { exitCode: 1, lines: ['The configuration item NamesrvAddr is not configured'] }
        : { boot: true }
    await sandbox.killNode('proxy-plain')
    await expect(sandbox.startNode('proxy-plain')).rejects.toThrow(
      'Node proxy-plain (proxy) exited with code 1'
    )
    expect(spawner.byNode('proxy-plain')).toHaveLength(2)
  })

  it('asks a JVM that outlives the stop grace for a thread dump, then kills it', async () => {
    await sandbox.start(twoRooms())
    const progress: string[] = []
    sandbox.on('progress', (e) => progress.push(`${e.nodeId}: ${e.message}`))
    spawner.ignoresTerm.add('broker-1')
    const pid = sandbox.node('broker-1').pid!
    expect((await sandbox.stopNode('broker-1')).state).toBe('stopped')
    expect(spawner.procs.find((p) => p.pid === pid)!.signals).toEqual([
      'SIGTERM',
      'SIGQUIT',
      'SIGKILL'
    ])
    expect(progress.find((m) => m.includes('SIGKILL'))).toBe(
      `broker-1: still running after 200 ms; thread dump in ${sandbox.status().runDir}/broker-1/out.log; sending SIGKILL`
    )
  })

  it('pauses, resumes, kills, starts, restarts and stops a node with real signals', async () => {
    await sandbox.start(twoRooms())
    const pid = sandbox.node('broker-1').pid!

    expect((await sandbox.pauseNode('broker-1')).state).toBe('paused')
    expect(procFs.state(pid)).toBe('T')
    expect((await sandbox.resumeNode('broker-1')).state).toBe('up')
    expect(procFs.state(pid)).toBe('S')

    const killed = await sandbox.killNode('broker-1')
    expect(killed.state).toBe('killed')
    expect(killed.pid).toBeUndefined()
    expect(spawner.procs.find((p) => p.pid === pid)!.signals).toEqual([
      'SIGSTOP',
      'SIGCONT',
      'SIGKILL'
    ])

    const started = await sandbox.startNode('broker-1')
    expect(started.state).toBe('up')
    expect(started.pid).not.toBe(pid)

    const restarted = await sandbox.restartNode('broker-1')
    expect(restarted.state).toBe('up')
    expect(restarted.pid).not.toBe(started.pid)

    expect((await sandbox.stopNode('broker-1')).state).toBe('stopped')
    expect((await sandbox.stopNode('broker-1')).state).toBe('stopped')
    await expect(sandbox.pauseNode('broker-1')).rejects.toThrow(
      'Cannot pause node broker-1: it is stopped; pause needs one of: up.'
    )
    const states = events.filter((e) => e.nodeId === 'broker-1').map((e) => e.state)
    expect(states).toEqual([
      'stopped',
      'starting',
      'up',
      'paused',
      'up',
      'killed',
      'starting',
      'up',
      'stopped',
      'starting',
      'up',
      'stopped'
    ])
  })

  it('a forced stop SIGKILLs every node at once, a paused one too, and leaves them stopped', async () => {
    await sandbox.start(twoRooms())
    await sandbox.pauseNode('broker-2')
    const pids = sandbox.status().nodes.map((n) => [n.nodeId, n.pid!] as const)
    const status = await sandbox.stop({ force: true })
    expect(status.running).toBe(false)
    expect(new Set(status.nodes.map((n) => n.state))).toEqual(new Set(['stopped']))
    for (const [id, pid] of pids) {
      const signals = spawner.procs.find((p) => p.pid === pid)!.signals
      expect(signals.at(-1), id).toBe('SIGKILL')
      expect(signals, id).not.toContain('SIGTERM')
    }
    expect(spawner.live()).toEqual([])
  })

  it('a stop right after a node start leaves nothing running: the queued boot is stopped or never runs', async () => {
    await sandbox.start(twoRooms())
    await sandbox.killNode('broker-1')
    // Start asked, not yet spawned when the stop looks at the nodes.
    const starting = sandbox.startNode('broker-1').catch((e: Error) => e)
    const restarting = sandbox.restartNode('broker-2').catch((e: Error) => e)
    await sandbox.stop()
    await Promise.all([starting, restarting])
    await new Promise((r) => setTimeout(r, 50))
    expect(spawner.live()).toEqual([])
    for (const id of ['broker-1', 'broker-2']) {
      expect(['stopped', 'killed'], id).toContain(sandbox.node(id).state)
    }
  })

  it('stops a paused node gracefully (SIGTERM then SIGCONT)', async () => {
    await sandbox.start(twoRooms())
    const pid = sandbox.node('ns-2').pid!
    await sandbox.pauseNode('ns-2')
    expect((await sandbox.stopNode('ns-2')).state).toBe('stopped')
    expect(spawner.procs.find((p) => p.pid === pid)!.signals).toEqual([
      'SIGSTOP',
      'SIGTERM',
      'SIGCONT'
    ])
  })

  it('marks a node that dies on its own as down', async () => {
    await sandbox.start(twoRooms())
    const proc = spawner.byNode('ns-1')[0]!
    proc.exit({ code: 1, signal: null })
    await new Promise((r) => setTimeout(r, 10))
    expect(sandbox.node('ns-1')).toMatchObject({
      state: 'down',
      detail: 'exited unexpectedly (exit code 1)'
    })
  })

  it('stops everything and names the node, exit code, log lines and log path when a node dies while booting', async () => {
    spawner.behaviour = (req) =>
      req.logFile.includes('/ns-1/')
        ? {
            exitCode: 255,
            lines: [
              'load config properties file OK',
              'java.net.BindException: Address already in use'
            ]
          }
        : { boot: true }
    const err = (await sandbox.start(twoRooms()).catch((e: unknown) => e)) as NodeBootError
    expect(err).toBeInstanceOf(NodeBootError)
    expect(err.code).toBe('boot-exit')
    expect(err.nodeId).toBe('ns-1')
    expect(err.exitCode).toBe(255)
    expect(err.message).toContain('Node ns-1 (nameserver) exited with code 255 while booting')
    expect(err.message).toContain('java.net.BindException: Address already in use')
    expect(err.message).toContain(join('ns-1', 'out.log'))
    expect(spawner.live()).toEqual([])
    expect(sandbox.running).toBe(false)
    expect(sandbox.node('ns-1').state).toBe('failed')
    expect(sandbox.node('mgmt-1').state).toBe('killed')
    // Management discovery boots brokers alongside (they ask for name servers 10 s later).
    expect(sandbox.node('broker-1').state).toBe('killed')
    expect(readPidFile(join(dataDir, 'sandbox', 'pids.json'))).toEqual([])
  })

  it('with a static name-server list, never starts a broker whose name servers failed to boot', async () => {
    spawner.behaviour = (req) =>
      req.logFile.includes('/ns-1/') ? { exitCode: 255, lines: ['boom'] } : { boot: true }
    const topo = twoRooms((raw) => (raw.settings.namesrvDiscovery = 'static'))
    await expect(sandbox.start(topo)).rejects.toBeInstanceOf(NodeBootError)
    expect(spawner.procs.some((p) => p.req.logFile.includes('/broker-'))).toBe(false)
    expect(spawner.live()).toEqual([])
  })

  it('times out a node that never prints its boot line', async () => {
    sandbox = make({ bootTimeoutMs: 400 })
    spawner.behaviour = (req) =>
      req.logFile.includes('/broker-2/') ? { hang: true } : { boot: true }
    const err = (await sandbox.start(twoRooms()).catch((e: unknown) => e)) as NodeBootError
    expect(err.code).toBe('boot-timeout')
    expect(err.message).toMatch(
      /Node broker-2 \(broker\) was not ready after 0.4 s .*Check its log: .*broker-2\/out\.log/
    )
    expect(spawner.live()).toEqual([])
  })

  it('stop() during a boot ends the wait at once and leaves nothing running', async () => {
    spawner.behaviour = (req) =>
      req.logFile.includes('/broker-') ? { hang: true } : { boot: true }
    const starting = sandbox.start(twoRooms()).catch((e: unknown) => e)
    await new Promise((r) => setTimeout(r, 300))
    const t0 = Date.now()
    await sandbox.stop()
    const err = (await starting) as SandboxError
    expect(Date.now() - t0).toBeLessThan(3000)
    expect(err.message).toBe('The sandbox was stopped while it was booting.')
    expect(spawner.live()).toEqual([])
    expect(sandbox.node('broker-1').state).toBe('killed')
    expect(sandbox.node('ns-1').state).toBe('stopped')
  })

  it('marks nodes abandoned because another one failed as killed, not failed', async () => {
    spawner.behaviour = (req) =>
      req.logFile.includes('/broker-1/')
        ? { exitCode: 1, lines: ['boom'] }
        : req.logFile.includes('/broker-2/')
          ? { hang: true }
          : { boot: true }
    const err = (await sandbox.start(twoRooms()).catch((e: unknown) => e)) as NodeBootError
    expect(err.nodeId).toBe('broker-1')
    expect(sandbox.node('broker-1').state).toBe('failed')
    expect(sandbox.node('broker-2').state).toBe('killed')
    expect(spawner.live()).toEqual([])
  })

  it('refuses a busy explicit port before starting anything', async () => {
    busy.add(9876)
    const topo = twoRooms((raw) => (raw.rooms[0].nameServers[0].port = 9876))
    const err = (await sandbox.start(topo).catch((e: unknown) => e)) as PortBusyError
    expect(err).toBeInstanceOf(PortBusyError)
    expect(err.message).toContain('Port 9876 of node ns-1 is already in use')
    expect(err.message).toContain('$.rooms[0].nameServers[0]')
    expect(spawner.procs).toEqual([])
    expect(sandbox.running).toBe(false)
  })

  it('watches attached nodes with real probes and faults them only through operator commands', async () => {
    const probed: string[] = []
    const ran: string[] = []
    let answering = true
    sandbox = make({
      attached: {
        probe: {
          probe: async (t) => {
            probed.push(t.address!)
            if (!answering) throw new Error('ECONNREFUSED')
            return {}
          }
        },
        run: async (input) => {
          ran.push(input.command)
          return {
            nodeId: input.nodeId,
            action: input.action,
            command: input.command,
            ok: true,
            exitCode: 0,
            signal: null,
            timedOut: false,
            durationMs: 1,
            lastLines: [],
            logFile: input.logFile
          }
        }
      }
    })
    const topo = twoRooms((raw) => {
      raw.settings.namesrvDiscovery = 'static'
      raw.rooms[1].nameServers[0] = {
        id: 'ns-2',
        host: '10.0.0.5',
        port: 9876,
        actions: { kill: 'ssh {host} sudo systemctl kill -s KILL rmq-namesrv-{port}' }
      }
    })
    const observed: string[] = []
    sandbox.on('observed', (c) => observed.push(`${c.nodeId} ${c.to}`))
    const status = await sandbox.start(topo)
    expect(spawner.byNode('ns-2')).toEqual([])
    const conf = readFileSync(join(status.runDir!, 'broker-1', 'broker.conf'), 'utf8')
    const ns1 = status.nodes.find((n) => n.nodeId === 'ns-1')!.address
    expect(conf).toContain(`namesrvAddr=${ns1};10.0.0.5:9876`)
    await waitFor(() => observed.includes('ns-2 up'))
    expect(probed).toContain('10.0.0.5:9876')
    expect(sandbox.node('ns-2')).toMatchObject({
      state: 'up',
      attached: true,
      address: '10.0.0.5:9876'
    })
    // No command for pause; the kill command needs the user's consent.
    const noCmd = (await sandbox.pauseNode('ns-2').catch((e: unknown) => e)) as SandboxError
    expect(noCmd.message).toMatch(/no pause command for it \(it has: kill\)/)
    const refused = (await sandbox.killNode('ns-2').catch((e: unknown) => e)) as SandboxError
    expect(refused.message).toContain(
      'would run your command `ssh 10.0.0.5 sudo systemctl kill -s KILL rmq-namesrv-9876`'
    )
    expect(refused.message).toContain('--allow-actions')
    expect(ran).toEqual([])
    sandbox.allowOperatorActions(true)
    answering = false
    const after = await sandbox.killNode('ns-2')
    expect(ran).toEqual(['ssh 10.0.0.5 sudo systemctl kill -s KILL rmq-namesrv-9876'])
    expect(after).toMatchObject({ state: 'down', attached: true, restorable: true })
    expect(observed).toContain('ns-2 down')
  })

  it('closes the connections its probes of attached nodes opened when it stops, and opens new ones at the next start', async () => {
    // A real remoting probe (the default) against a loopback name server that stays up, as an
    // operator's does: a pooled socket left open would keep a finished CLI alive.
    const ns2 = await startStubServer((cmd, socket) => stubReply(socket, cmd, 22))
    try {
      const topo = twoRooms((raw) => {
        raw.settings.namesrvDiscovery = 'static'
        raw.rooms[1].nameServers[0] = { id: 'ns-2', host: '127.0.0.1', port: ns2.port }
      })
      await sandbox.start(topo)
      expect(sandbox.node('ns-2')).toMatchObject({ state: 'up', attached: true })
      expect(ns2.openConnections()).toBe(1)
      await sandbox.stop()
      await waitFor(() => ns2.openConnections() === 0)
      const asked = ns2.received.length
      await sandbox.start(topo)
      expect(sandbox.node('ns-2')).toMatchObject({ state: 'up', attached: true })
      expect(ns2.received.length).toBeGreaterThan(asked)
      await sandbox.stop()
      await waitFor(() => ns2.openConnections() === 0)
    } finally {
      await ns2.close()
    }
  })

  it('explains a management-discovery room without a management node', async () => {
    const topo = twoRooms((raw) => (raw.rooms[1].managementNodes = []))
    await expect(sandbox.start(topo)).rejects.toThrow(
      /Room room2 has brokers but no management node.*set namesrvDiscovery to "static"/
    )
  })

  it('sweeps processes recorded by a dead DR Studio when /proc proves they are ours', () => {
    const root = join(dataDir, 'sandbox')
    const runDir = join(root, '20260101-000000-abcd')
    writePidFile(join(root, 'pids.json'), [
      { pid: 777, nodeId: 'ns-1', runDir, ownerPid: 999_999_999, startedAt: 0 },
      { pid: 778, nodeId: 'ns-2', runDir, ownerPid: 999_999_999, startedAt: 0 }
    ])
    const fake = spawner as FakeSpawner & { signalled?: number[] }
    const signalled: number[] = []
    fake.signal = (pid) => (signalled.push(pid), true)
    sandbox = make({
      procFs: {
        ...procFs,
        cmdline: (pid) => (pid === 777 ? `java -Duser.home=${runDir}/ns-1` : 'vim')
      }
    })
    expect(sandbox.sweepOrphans()).toBe(1)
    expect(signalled).toEqual([777])
    expect(readPidFile(join(root, 'pids.json'))).toEqual([])
  })

  it("is the engine's SandboxPort and forwards its events onto the engine bus", async () => {
    const port: SandboxPort = sandbox
    const bus = new EngineEvents()
    const seen: string[] = []
    bus.onAny((channel) => seen.push(channel))
    forwardSandboxEvents(sandbox, bus)
    await port.start(twoRooms(), 7)
    expect(port.status().runId).toBe(7)
    expect(seen).toContain('sandbox:node-state')
    expect(seen).toContain('sandbox:progress')
    expect(seen).toContain('sandbox:status')
  })

  it('rejects operations on unknown nodes and a second start', async () => {
    await sandbox.start(twoRooms())
    await expect(sandbox.start(twoRooms())).rejects.toThrow(/already running/)
    await expect(sandbox.killNode('nope')).rejects.toThrow(
      /No sandbox node "nope"; known nodes: ns-1, broker-1, mgmt-1/
    )
  })
})
