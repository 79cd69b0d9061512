import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { Server } from 'node:net'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Topology } from '../../common/topology/schema'
import { topologySchema } from '../../common/topology/schema'
import { RemotingRpc } from '../../main/services/remoting'
import type { SandboxError } from '../../main/services/sandbox'
import { linuxProcFs, NodeBootError, PortBusyError, Sandbox } from '../../main/services/sandbox'

const REPO = resolve(import.meta.dirname, '../..')

/** The parts of the raw topology JSON the tests edit before parsing. */
interface RawTopology {
  settings: { namesrvDiscovery: string }
  rooms: { nameServers: Record<string, unknown>[]; managementNodes: unknown[] }[]
}

function twoRooms(mutate?: (raw: RawTopology) => void): Topology {
  const raw = JSON.parse(readFileSync(join(REPO, 'resources/topologies/two-rooms.json'), 'utf8'))
  mutate?.(raw)
  return topologySchema.parse(raw)
}

/** Pids whose command line mentions `path` (the acceptance check for orphans). */
function pgrep(path: string): number[] {
  const r = spawnSync('pgrep', ['-f', path], { encoding: 'utf8' })
  return r.stdout
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid)
}

function tcpOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':')
  return new Promise((done) => {
    const s = connect({ host: host!, port: Number(port) })
    s.setTimeout(1000, () => (s.destroy(), done(false)))
    s.once('connect', () => (s.destroy(), done(true)))
    s.once('error', () => done(false))
  })
}

function holdPort(): Promise<Server & { port: number }> {
  return new Promise((done) => {
    const server = createServer()
    server.listen({ port: 0, host: '0.0.0.0' }, () => {
      const port = (server.address() as { port: number }).port
      done(Object.assign(server, { port }))
    })
  })
}

describe('sandbox on real RocketMQ 5.3.3 JVMs', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-sandbox-'))
  const root = join(dataDir, 'sandbox')
  const sandboxes: Sandbox[] = []
  const client = new RemotingRpc()
  const make = (): Sandbox => {
    const sb = new Sandbox({ dataDir, repoRoot: REPO })
    sandboxes.push(sb)
    return sb
  }

  /** Broker addresses a name server currently lists. */
  const listed = async (namesrv: string): Promise<string[]> => {
    const info = await client.getBrokerClusterInfo(namesrv, { timeoutMs: 3000 })
    return Object.values(info.brokerAddrTable).flatMap((b) => Object.values(b.brokerAddrs))
  }

  afterAll(async () => {
    client.close()
    for (const sb of sandboxes) await sb.stop({ force: true })
    expect(pgrep(root)).toEqual([])
    if (!process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  })

  it('refuses a busy explicit port with the node, the port and the fix, and starts nothing', async () => {
    const held = await holdPort()
    try {
      const sb = make()
      const err = (await sb
        .start(twoRooms((raw) => (raw.rooms[1].nameServers[0].port = held.port)))
        .catch((e: unknown) => e)) as PortBusyError
      expect(err).toBeInstanceOf(PortBusyError)
      expect(err.nodeId).toBe('ns-2')
      expect(err.message).toContain(`Port ${held.port} of node ns-2 is already in use`)
      expect(err.message).toContain('remove "port" from node ns-2')
      expect(sb.running).toBe(false)
      expect(pgrep(root)).toEqual([])
    } finally {
      held.close()
    }
  })

  it('stops everything already started when a node dies while booting', async () => {
    const sb = new Sandbox({
      dataDir,
      repoRoot: REPO,
      managementCommand: () => ({
        command: process.execPath,
        args: ['-e', "console.error('management boom'); process.exit(3)"]
      })
    })
    sandboxes.push(sb)
    const err = (await sb.start(twoRooms()).catch((e: unknown) => e)) as NodeBootError
    expect(err).toBeInstanceOf(NodeBootError)
    expect(err.code).toBe('boot-exit')
    expect(err.exitCode).toBe(3)
    expect(err.message).toMatch(/Node mgmt-\d \(management\) exited with code 3 while booting/)
    expect(err.message).toContain('management boom')
    expect(err.message).toMatch(/Full log: .*mgmt-\d\/out\.log/)
    expect(sb.running).toBe(false)
    expect(pgrep(root)).toEqual([])
  })

  it('sweeps a JVM orphaned by a DR Studio process that was SIGKILLed', async () => {
    const script = `
      import { createProcessSpawner, Sandbox } from ${JSON.stringify(join(REPO, 'main/services/sandbox/index.ts'))}
      import { topologySchema } from ${JSON.stringify(join(REPO, 'common/topology/schema.ts'))}
      // No parent-death signal (a machine without setpriv, or a crash between fork and prctl).
      const spawner = createProcessSpawner({ deathTie: () => ({ kind: 'none', reason: 'test' }), warn: () => {} })
      const sb = new Sandbox({ dataDir: ${JSON.stringify(dataDir)}, repoRoot: ${JSON.stringify(REPO)}, spawner })
      await sb.start(topologySchema.parse({ kind: 'drstudio/topology', version: 1, name: 'orphan',
        settings: { namesrvDiscovery: 'static' }, rooms: [{ id: 'room1', nameServers: [{ id: 'ns-x' }] }] }))
      console.log('READY ' + sb.node('ns-x').pid)
      setInterval(() => {}, 1000)
    `
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'inherit']
      }
    )
    const jvmPid = await new Promise<number>((done, fail) => {
      let out = ''
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString()
        const m = /READY (\d+)/.exec(out)
        if (m) done(Number(m[1]))
      })
      child.once('exit', (code) => fail(new Error(`orphan fixture exited with ${code}: ${out}`)))
    })
    const gone = new Promise((r) => child.once('exit', r))
    child.kill('SIGKILL')
    await gone
    // Untied, the JVM leads its own process group and outlives its killed parent...
    expect(linuxProcFs.cmdline(jvmPid)).toContain(root)
    // ...until the next sandbox sweeps it.
    expect(make().sweepOrphans()).toBe(1)
    const deadOrZombie = (): boolean => [undefined, 'Z'].includes(linuxProcFs.state(jvmPid))
    await expect.poll(deadOrZombie, { timeout: 10_000 }).toBe(true)
    expect(JSON.parse(readFileSync(join(root, 'pids.json'), 'utf8')).entries).toEqual([])
  })

  describe('two-rooms, management discovery', () => {
    let sb: Sandbox
    let runDir: string

    beforeAll(async () => {
      sb = make()
      const status = await sb.start(twoRooms())
      runDir = status.runDir!
    })

    it('boots every node: up, a live pid running our run folder, an address that answers', async () => {
      const { nodes } = sb.status()
      expect(nodes.map((n) => `${n.nodeId}:${n.state}`).sort()).toEqual([
        'broker-1:up',
        'broker-2:up',
        'mgmt-1:up',
        'mgmt-2:up',
        'ns-1:up',
        'ns-2:up'
      ])
      for (const n of nodes) {
        expect(linuxProcFs.cmdline(n.pid!)).toContain(runDir)
        expect(await tcpOpen(n.address!)).toBe(true)
      }
      expect(sb.readLog('broker-1', 8192).text).toMatch(
        /The broker\[broker-a, 127\.0\.0\.1:\d+\] boot success/
      )
      expect(existsSync(join(runDir, 'broker-1', 'logs', 'rocketmqlogs', 'broker.log'))).toBe(true)
      const pids = JSON.parse(readFileSync(join(root, 'pids.json'), 'utf8')).entries
      expect(pids.map((e: { pid: number }) => e.pid).sort()).toEqual(nodes.map((n) => n.pid).sort())
    })

    it('brokers learn every name server from their management node and register with all', async () => {
      const report = await sb.waitForRegistration()
      console.log(`registration after boot: ${JSON.stringify(report)}`)
      expect(report.allMs).not.toBeNull()
      const brokers = ['broker-1', 'broker-2'].map((id) => sb.node(id).address)
      for (const ns of ['ns-1', 'ns-2']) {
        expect((await listed(sb.node(ns).address!)).sort()).toEqual(brokers.sort())
      }
      // They had the list at boot (asked just before launch), not from a fetch 10 s later:
      // RocketMQ prints the name servers on its boot line only when it starts with them.
      const own = ['ns-1', 'ns-2'].map((id) => sb.node(id).address).join(';')
      const other = ['ns-2', 'ns-1'].map((id) => sb.node(id).address).join(';')
      for (const [broker, list] of [
        ['broker-1', own],
        ['broker-2', other]
      ] as const) {
        expect(sb.readLog(broker, 8192).text).toContain(
          `boot success. serializeType=JSON and name server is ${list}`
        )
      }
    })

    it('pause freezes the JVM (State T) and name servers expire it; resume brings it back', async () => {
      const broker = sb.node('broker-2')
      const ns1 = sb.node('ns-1').address!
      expect((await sb.pauseNode('broker-2')).state).toBe('paused')
      expect(linuxProcFs.state(broker.pid!)).toBe('T')
      const pausedAt = Date.now()
      await expect
        .poll(async () => (await listed(ns1)).includes(broker.address!), {
          timeout: 40_000,
          interval: 500
        })
        .toBe(false)
      console.log(`paused broker dropped by ns-1 after ${Date.now() - pausedAt} ms`)

      expect((await sb.resumeNode('broker-2')).state).toBe('up')
      expect(linuxProcFs.state(broker.pid!)).not.toBe('T')
      await expect
        .poll(async () => (await listed(ns1)).includes(broker.address!), {
          timeout: 40_000,
          interval: 500
        })
        .toBe(true)
    })

    it('kill ends the process at once; start brings the node back with a new pid', async () => {
      const before = sb.node('broker-1')
      const killed = await sb.killNode('broker-1')
      expect(killed.state).toBe('killed')
      expect(existsSync(`/proc/${before.pid}`)).toBe(false)
      await expect
        .poll(async () => (await listed(sb.node('ns-2').address!)).includes(before.address!), {
          timeout: 10_000,
          interval: 200
        })
        .toBe(false)

      const started = await sb.startNode('broker-1')
      expect(started.state).toBe('up')
      expect(started.pid).not.toBe(before.pid)
      expect(started.address).toBe(before.address)
    })

    it('restart replaces a running name server; stop/start a management node', async () => {
      const before = sb.node('ns-2')
      const after = await sb.restartNode('ns-2')
      expect(after.state).toBe('up')
      expect(after.pid).not.toBe(before.pid)
      expect(existsSync(`/proc/${before.pid}`)).toBe(false)

      const mgmt = sb.node('mgmt-1')
      expect((await sb.stopNode('mgmt-1')).state).toBe('stopped')
      expect(await tcpOpen(mgmt.address!)).toBe(false)
      expect((await sb.startNode('mgmt-1')).state).toBe('up')
      expect(await tcpOpen(mgmt.address!)).toBe(true)
    })

    it('attaches to an existing name server and refuses to kill it', async () => {
      const [host, port] = sb.node('ns-1').address!.split(':')
      const other = make()
      const status = await other.start(
        topologySchema.parse({
          kind: 'drstudio/topology',
          version: 1,
          name: 'attach',
          settings: { namesrvDiscovery: 'static' },
          rooms: [{ id: 'room1', nameServers: [{ id: 'ext-ns', host, port: Number(port) }] }]
        })
      )
      // Probed once with a real request before start() returns.
      expect(status.nodes).toEqual([
        expect.objectContaining({ nodeId: 'ext-ns', state: 'up', attached: true })
      ])
      expect(status.nodes[0]!.detail).toMatch(/^up, \d+ ms/)
      const err = (await other.killNode('ext-ns').catch((e: unknown) => e)) as SandboxError
      expect(err.code).toBe('node-attached')
      expect(err.message).toContain(
        `node ext-ns is attached (${host}:${port}) and the topology has no kill command for it; ` +
          `add "actions": {"kill": "…"} to the node or to its room's actions, e.g. "ssh {host} sudo systemctl kill -s KILL rmq-namesrv"`
      )
      await other.stop()
      expect(sb.node('ns-1').state).toBe('up')
    })

    it('Stop kills every process of the run, as the app and the CLI stop it', async () => {
      // A graceful stop of the whole sandbox (setup's class archives need it) is proxy.test.ts's.
      await sb.stop({ force: true })
      expect(sb.status().nodes.every((n) => n.state === 'stopped')).toBe(true)
      expect(pgrep(runDir)).toEqual([])
    })
  })
})
