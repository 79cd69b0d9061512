import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ManagementNode, type NameServersResponse } from '../../main/services/management'
import { RemotingRpc } from '../../main/services/remoting'
import {
  assertJars,
  makeRunDir,
  removeRunDir,
  runJavaSource,
  runningJvmPids,
  startBroker,
  startNamesrv,
  stopAllJvms,
  type JvmProcess
} from './helpers/jvm'

const REPO = resolve(import.meta.dirname, '../..')
const PROBE_INTERVAL_MS = 500
const PROBE_TIMEOUT_MS = 300

/** MixAll.getWSAddr(): with a "host:port" domain RocketMQ does not append :8080. */
function rocketmqWsAddr(domain: string, subgroup = 'nsaddr'): string {
  return domain.indexOf(':') > 0
    ? `http://${domain}/rocketmq/${subgroup}`
    : `http://${domain}:8080/rocketmq/${subgroup}`
}

/** DefaultTopAddressing.clearNewLine: trim, then cut at the first \r, else at the first \n. */
function clearNewLine(s: string): string {
  const t = s.trim()
  const r = t.indexOf('\r')
  if (r !== -1) return t.slice(0, r)
  const n = t.indexOf('\n')
  return n !== -1 ? t.slice(0, n) : t
}

/** DefaultTopAddressing.fetchNSAddr(true, 3000) through HttpTinyClient.httpGet, replayed in TS. */
async function fetchNsAddrLikeRocketMQ(domain: string): Promise<string | null> {
  const res = await fetch(rocketmqWsAddr(domain), {
    method: 'GET',
    headers: {
      'Client-Version': 'V5_3_3',
      'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8',
      'Metaq-Client-RequestTS': String(Date.now())
    },
    signal: AbortSignal.timeout(3000)
  })
  const body = await res.text()
  return res.status === 200 ? clearNewLine(body) : null
}

const FETCH_JAVA = `
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.namesrv.DefaultTopAddressing;

public class FetchNsAddr {
    public static void main(String[] args) {
        String url = MixAll.getWSAddr();
        System.out.println("URL=" + url);
        System.out.println("NSADDR=" + new DefaultTopAddressing(url).fetchNSAddr());
    }
}
`

describe('management node against real name servers', () => {
  let root: string
  let ns1: JvmProcess
  let ns2: JvmProcess
  let node: ManagementNode
  const children: ChildProcess[] = []

  beforeAll(async () => {
    assertJars()
    root = await makeRunDir('management')
    ;[ns1, ns2] = await Promise.all([
      startNamesrv(root, { name: 'ns-room1' }),
      startNamesrv(root, { name: 'ns-room2' })
    ])
    node = new ManagementNode({
      id: 'mgmt-room1',
      room: 'room1',
      probeIntervalMs: PROBE_INTERVAL_MS,
      probeTimeoutMs: PROBE_TIMEOUT_MS,
      // Other room listed first on purpose: the node must still serve its own room first.
      nameServers: [
        { id: 'ns-room2', room: 'room2', address: ns2.address },
        { id: 'ns-room1', room: 'room1', address: ns1.address }
      ]
    })
    await node.start()
  })

  afterAll(async () => {
    await node?.stop()
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    await stopAllJvms()
    expect(runningJvmPids()).toEqual([])
    if (root) await removeRunDir(root)
  })

  it('lists both name servers, own room first, with probe details', async () => {
    const view = async (): Promise<NameServersResponse> =>
      (await (await fetch(`${node.url}/v1/nameservers`)).json()) as NameServersResponse
    // A cold namesrv JVM can miss the first 300 ms probe (class loading, JIT); the next round lists it.
    await expect
      .poll(async () => (await view()).nameServers.every((n) => n.available), {
        timeout: 5 * PROBE_INTERVAL_MS,
        interval: 50
      })
      .toBe(true)
    const body = await view()
    expect(body.room).toBe('room1')
    expect(body.proxies).toEqual([])
    expect(body.nameServers.map((n) => [n.id, n.room, n.address, n.available])).toEqual([
      ['ns-room1', 'room1', ns1.address, true],
      ['ns-room2', 'room2', ns2.address, true]
    ])
    for (const n of body.nameServers) {
      expect(n.lastError).toBeNull()
      expect(n.latencyMs).toBeGreaterThanOrEqual(0)
      expect(n.lastProbeAt).toBeGreaterThan(0)
    }
    expect(await (await fetch(`${node.url}/rocketmq/nsaddr`)).text()).toBe(
      `${ns1.address};${ns2.address}`
    )
  })

  it('is read exactly as RocketMQ TopAddressing reads it (URL building, headers, trimming)', async () => {
    expect(rocketmqWsAddr(node.addressServerDomain)).toBe(`${node.url}/rocketmq/nsaddr`)
    const fetched = await fetchNsAddrLikeRocketMQ(node.addressServerDomain)
    expect(fetched?.split(';')).toEqual([ns1.address, ns2.address])
  })

  it('is read by the real Java DefaultTopAddressing from the 5.3.3 jars', async () => {
    const file = join(root, 'FetchNsAddr.java')
    writeFileSync(file, FETCH_JAVA)
    const out = await runJavaSource(file, [], {
      'rocketmq.namesrv.domain': node.addressServerDomain,
      'user.home': root
    })
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain(`URL=${node.url}/rocketmq/nsaddr`)
    expect(out.stdout).toContain(`NSADDR=${ns1.address};${ns2.address}`)
  })

  it('lets a stock broker discover both rooms’ name servers and register with both', async () => {
    const bootStarted = Date.now()
    const broker = await startBroker(root, {
      brokerName: 'broker-mgmt',
      clusterName: 'MgmtCluster',
      zone: 'room1',
      extraConf: {
        fetchNamesrvAddrByAddressServer: true,
        rmqAddressServerDomain: node.addressServerDomain,
        rmqAddressServerSubGroup: 'nsaddr',
        // Default 30 s: the first periodic registration (10 s) can race the first fetch and miss.
        registerNameServerPeriod: 10000
      }
    })
    const client = new RemotingRpc()
    try {
      const listed = async (address: string): Promise<string | undefined> =>
        (await client.getBrokerClusterInfo(address)).brokerAddrTable['broker-mgmt']?.zoneName
      // RocketMQ's first address-server fetch runs 10 s after boot, then it registers.
      await expect.poll(() => listed(ns1.address), { timeout: 60_000, interval: 250 }).toBe('room1')
      await expect.poll(() => listed(ns2.address), { timeout: 30_000, interval: 250 }).toBe('room1')
      console.info(
        `[measure] broker ${broker.name} registered with both name servers ` +
          `${Date.now() - bootStarted} ms after spawn (JVM boot + RocketMQ's 10 s first fetch)`
      )
    } finally {
      client.close()
    }
  })

  it('drops a frozen (SIGSTOP) name server at its second unanswered probe and relists it after SIGCONT', async () => {
    const nsaddr = async (): Promise<string> => (await fetch(`${node.url}/rocketmq/nsaddr`)).text()
    await expect
      .poll(nsaddr, { timeout: 5 * PROBE_INTERVAL_MS })
      .toBe(`${ns1.address};${ns2.address}`)
    process.kill(ns2.pid, 'SIGSTOP')
    try {
      const frozenAt = Date.now()
      // Frozen: the kernel still accepts the TCP connection, so only the probe timeout catches it,
      // and only at the second unanswered probe in a row (timeoutsBeforeDown: one slow answer on
      // a busy host is not an outage): up to one interval to the next round, then two probes.
      await expect.poll(nsaddr, { timeout: 3 * PROBE_INTERVAL_MS, interval: 25 }).toBe(ns1.address)
      console.info(`[measure] frozen name server dropped after ${Date.now() - frozenAt} ms`)
      const view = (await (await fetch(`${node.url}/v1/nameservers`)).json()) as NameServersResponse
      expect(view.nameServers.find((n) => n.id === 'ns-room2')?.lastError).toMatch(/^timeout/)
    } finally {
      process.kill(ns2.pid, 'SIGCONT')
    }
    const resumedAt = Date.now()
    await expect
      .poll(nsaddr, { timeout: 2 * PROBE_INTERVAL_MS, interval: 25 })
      .toBe(`${ns1.address};${ns2.address}`)
    console.info(`[measure] resumed name server relisted after ${Date.now() - resumedAt} ms`)
  })

  it('stops listing a killed name server within 2 probe periods', async () => {
    await ns2.stop('SIGKILL')
    const killedAt = Date.now()
    await expect
      .poll(async () => (await fetch(`${node.url}/rocketmq/nsaddr`)).text(), {
        timeout: 2 * PROBE_INTERVAL_MS,
        interval: 25
      })
      .toBe(ns1.address)
    const elapsed = Date.now() - killedAt
    console.info(`[measure] killed name server dropped from /rocketmq/nsaddr after ${elapsed} ms`)
    expect(elapsed).toBeLessThanOrEqual(2 * PROBE_INTERVAL_MS)
    const body = (await (await fetch(`${node.url}/v1/nameservers`)).json()) as NameServersResponse
    const dead = body.nameServers.find((n) => n.id === 'ns-room2')
    expect(dead?.available).toBe(false)
    expect(dead?.lastError).toMatch(/^(connect-failed|connection-closed)/)
  })

  it('runs standalone as a child process: prints its URL, serves, exits 0 on SIGTERM', async () => {
    const config = join(root, 'mgmt-standalone.json')
    writeFileSync(
      config,
      JSON.stringify({
        id: 'mgmt-room2',
        room: 'room2',
        host: '127.0.0.1',
        port: 0,
        probeIntervalMs: PROBE_INTERVAL_MS,
        probeTimeoutMs: PROBE_TIMEOUT_MS,
        nameServers: [
          { id: 'ns-room1', room: 'room1', address: ns1.address },
          { id: 'ns-room2', room: 'room2', address: ns2.address }
        ]
      })
    )
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'main/services/management/standalone.ts', config],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] }
    )
    children.push(child)
    let stdout = ''
    let stderr = ''
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
    const url = await new Promise<string>((done, fail) => {
      child.stdout?.on('data', (c: Buffer) => {
        stdout += c.toString()
        const m = /listening on (http:\/\/\S+)/.exec(stdout)
        if (m?.[1]) done(m[1])
      })
      child.once('exit', (code) => fail(new Error(`standalone exited ${code}: ${stderr}`)))
    })
    expect((await fetch(`${url}/healthz`)).status).toBe(200)
    // ns-room2 is dead: only room1's name server is served, even though it is not this node's room.
    expect(await (await fetch(`${url}/rocketmq/nsaddr`)).text()).toBe(ns1.address)
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stdout).toMatch(/SIGTERM, stopping/)
  })

  it('standalone refuses a bad config, naming the file and the JSON path', async () => {
    const config = join(root, 'mgmt-bad.json')
    writeFileSync(
      config,
      JSON.stringify({
        id: 'm',
        room: 'room1',
        nameServers: [{ id: 'a', room: 'room1', address: 'x' }]
      })
    )
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'main/services/management/standalone.ts', config],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] }
    )
    children.push(child)
    let stderr = ''
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)))
    expect(code).toBe(1)
    expect(stderr).toContain(config)
    expect(stderr).toContain('$.nameServers[0].address')
  })
})
