import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import threeRoomsJson from '../../../resources/topologies/three-rooms.json'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import twoRoomsSyncJson from '../../../resources/topologies/two-rooms-sync.json'
import type { Topology } from '../../../common/topology/schema'
import { topologySchema } from '../../../common/topology/schema'
import { managementConfigSchema } from '../management/config'
import { exportTopology, ExportError } from './export'
import { fillPlaceholders, findPlaceholders, listPlaceholderSpecs } from './placeholders'
import { MANIFEST_FILE, renderExport } from './render'
import { xmlProblems } from './well-formed-xml'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any

function twoRooms(edit: (doc: Doc) => void = () => {}): Topology {
  const doc = structuredClone(twoRoomsJson) as Doc
  edit(doc)
  return topologySchema.parse(doc)
}
const threeRooms = () => topologySchema.parse(structuredClone(threeRoomsJson))

const tmpRoots: string[] = []
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-export-'))
  tmpRoots.push(dir)
  return dir
}
afterAll(() => {
  for (const d of tmpRoots) rmSync(d, { recursive: true, force: true })
})

function props(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue
    const i = line.indexOf('=')
    out[line.slice(0, i)] = line.slice(i + 1)
  }
  return out
}

const LOOPBACK = /\b(127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0)\b/

/** The exact `drstudio mgmt --config` shape of the brief (no extra keys), next to the real schema. */
const managementShape = z
  .object({
    id: z.string(),
    room: z.string(),
    host: z.string(),
    port: z.union([z.number().int(), z.string().regex(/^<.+-port>$/)]),
    probeIntervalMs: z.number().int(),
    probeTimeoutMs: z.number().int(),
    nameServers: z.array(
      z.object({ id: z.string(), room: z.string(), address: z.string() }).strict()
    )
  })
  .strict()

describe('broker.conf', () => {
  const files = renderExport(twoRooms())
  const conf = props(files.get('room1/broker-1/broker.conf')!)

  it('carries identity, role and the address-server discovery keys', () => {
    expect(conf).toMatchObject({
      brokerClusterName: 'DrCluster',
      brokerName: 'broker-a',
      brokerId: '0',
      brokerRole: 'ASYNC_MASTER',
      fetchNamesrvAddrByAddressServer: 'true',
      rmqAddressServerDomain: '<room1-mgmt-1-host>:<room1-mgmt-1-port>',
      rmqAddressServerSubGroup: 'nsaddr',
      // a name server learned from the management node lists the broker within 10 s, not 30 s
      registerNameServerPeriod: '10000'
    })
    expect(conf.namesrvAddr).toBeUndefined()
  })

  it('exports a synchronous master as SYNC_MASTER and its slave as SLAVE', () => {
    const out = renderExport(topologySchema.parse(twoRoomsSyncJson))
    expect(props(out.get('room1/broker-1/broker.conf')!)).toMatchObject({
      brokerRole: 'SYNC_MASTER',
      inSyncReplicas: '2'
    })
    expect(props(out.get('room2/broker-1-slave/broker.conf')!)).toMatchObject({
      brokerRole: 'SLAVE',
      brokerId: '1'
    })
  })

  it('marks what the topology leaves open as placeholders, never loopback', () => {
    expect(conf.brokerIP1).toBe('<room1-broker-1-host>')
    expect(conf.listenPort).toBe('<room1-broker-1-port>')
    expect(conf.storePathRootDir).toBe('<room1-broker-1-store-root>')
    expect(conf.storePathCommitLog).toBe('<room1-broker-1-store-root>/commitlog')
    for (const [path, text] of files) {
      if (path.startsWith('staging/')) continue
      expect(text, path).not.toMatch(LOOPBACK)
    }
  })

  it('uses the topology values when given, with the HA port spelled out', () => {
    const t = twoRooms((d) =>
      Object.assign(d.rooms[0].brokers[0], {
        host: 'b1.room1.example',
        port: 10921,
        storePath: '/data/rmq/b1'
      })
    )
    const c = props(renderExport(t).get('room1/broker-1/broker.conf')!)
    expect(c).toMatchObject({
      brokerIP1: 'b1.room1.example',
      listenPort: '10921',
      haListenPort: '10922',
      storePathRootDir: '/data/rmq/b1',
      storePathCommitLog: '/data/rmq/b1/commitlog'
    })
  })

  it('lists every room name server with static discovery', () => {
    const t = twoRooms((d) => {
      d.settings.namesrvDiscovery = 'static'
      Object.assign(d.rooms[1].nameServers[0], { host: 'ns2.example', port: 9876 })
    })
    const c = props(renderExport(t).get('room2/broker-2/broker.conf')!)
    expect(c.namesrvAddr).toBe('<room1-ns-1-host>:<room1-ns-1-port>;ns2.example:9876')
    expect(c.fetchNamesrvAddrByAddressServer).toBeUndefined()
    expect(c.registerNameServerPeriod).toBe('10000')
  })

  it('makes slaves SLAVE with their id, and gives a remote slave its master zone', () => {
    const t = twoRooms((d) =>
      d.rooms[1].brokers.push({
        id: 'broker-1r',
        cluster: 'DrCluster',
        brokerName: 'broker-a',
        role: 'slave',
        brokerId: 2
      })
    )
    const f = renderExport(t)
    expect(props(f.get('room2/broker-1r/broker.conf')!)).toMatchObject({
      brokerRole: 'SLAVE',
      brokerId: '2'
    })
    expect(f.get('room2/broker-1r/start-broker.sh')).toContain('export ROCKETMQ_ZONE=room1')
    // it still asks its own room's management node for name servers
    expect(props(f.get('room2/broker-1r/broker.conf')!).rmqAddressServerDomain).toContain(
      'room2-mgmt-2'
    )
  })
})

describe('management.json and client files', () => {
  const files = renderExport(threeRooms())

  it('has the exact shape drstudio mgmt --config reads, listing all rooms name servers', () => {
    for (const path of ['room2/mgmt-2/management.json', 'staging/room2/mgmt-2/management.json']) {
      const m = managementShape.parse(JSON.parse(files.get(path)!))
      expect(m.nameServers.map((n) => n.id)).toEqual([
        'ns-1a',
        'ns-1b',
        'ns-2a',
        'ns-2b',
        'ns-3a',
        'ns-3b'
      ])
      expect(m).toMatchObject({
        id: 'mgmt-2',
        room: 'room2',
        probeIntervalMs: 1000,
        probeTimeoutMs: 500
      })
    }
    expect(JSON.parse(files.get('staging/room2/mgmt-2/management.json')!).port).toBe(8080)
  })

  it('passes the management service config schema (staging as is, production once filled)', () => {
    expect(
      managementConfigSchema.safeParse(
        JSON.parse(files.get('staging/room1/mgmt-1/management.json')!)
      ).success
    ).toBe(true)
    const t = threeRooms()
    const values = Object.fromEntries(
      listPlaceholderSpecs(t).map((p, i) => [
        p.token,
        p.field === 'port' ? String(20000 + i * 4) : `${p.nodeId}.example`
      ])
    )
    const filled = renderExport(t, { values }).get('room3/mgmt-3/management.json')!
    const parsed = managementConfigSchema.safeParse(JSON.parse(filled))
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true)
    // unfilled, it is rejected at the placeholder, not silently accepted
    expect(
      managementConfigSchema.safeParse(JSON.parse(files.get('room3/mgmt-3/management.json')!))
        .success
    ).toBe(false)
  })

  it('writes client.json and the stock Java equivalents per room', () => {
    const client = JSON.parse(files.get('room1/client.json')!)
    expect(client).toMatchObject({
      room: 'room1',
      selectionPolicy: 'round-robin',
      routeRefreshMs: 1000,
      fallbackRooms: ['room2', 'room3'],
      management: [
        {
          id: 'mgmt-1',
          nsaddrUrl: 'http://<room1-mgmt-1-host>:<room1-mgmt-1-port>/rocketmq/nsaddr'
        }
      ]
    })
    const java = props(files.get('room3/client-java.properties')!)
    expect(java).toMatchObject({
      'rocketmq.namesrv.domain': '<room3-mgmt-3-host>:<room3-mgmt-3-port>',
      'rocketmq.namesrv.domain.subgroup': 'nsaddr',
      'rocketmq.zone': 'room3',
      'rocketmq.zone.mode': 'false',
      'drstudio.broker-room.broker-a': 'room1'
    })
    expect(files.get('room3/client-java.properties')).toContain('AllocateMachineRoomNearby')
  })

  it('uses declared fallback rooms when clients name them', () => {
    const t = twoRooms((d) => (d.rooms[0].producers[0].fallbackRooms = ['room2']))
    expect(
      JSON.parse(renderExport(t).get('room1/client.json')!).producers[0].fallbackRooms
    ).toEqual(['room2'])
  })
})

describe('proxies', () => {
  it('export a cluster-mode rmq-proxy.json, launcher and compose service', () => {
    const t = twoRooms(
      (d) => (d.rooms[0].proxies = [{ id: 'proxy-1', port: 8081, remotingPort: 8080 }])
    )
    const f = renderExport(t)
    expect(JSON.parse(f.get('room1/proxy-1/rmq-proxy.json')!)).toEqual({
      rocketMQClusterName: 'DrCluster',
      proxyMode: 'CLUSTER',
      grpcServerPort: 8081,
      remotingListenPort: 8080,
      localServeAddr: '<room1-proxy-1-host>',
      remotingAccessAddr: '<room1-proxy-1-host>',
      namesrvDomain: '<room1-mgmt-1-host>:<room1-mgmt-1-port>',
      namesrvDomainSubgroup: 'nsaddr'
    })
    expect(f.get('room1/proxy-1/start-proxy.sh')).toContain(
      'mqproxy" -pc "$(pwd)/rmq-proxy.json" -pm cluster'
    )
    // Zone-pinned by default: the launcher sets the room as zone and turns zone mode on.
    expect(f.get('room1/proxy-1/start-proxy.sh')).toContain(
      'export ROCKETMQ_ZONE=room1\nexport ROCKETMQ_ZONE_MODE=true\n'
    )
    const compose = parseYaml(f.get('docker-compose.yml')!) as Doc
    expect(compose.services['proxy-1'].depends_on).toEqual(['broker-1', 'broker-2'])
    expect(compose.services['proxy-1'].environment).toMatchObject({
      ROCKETMQ_ZONE: 'room1',
      ROCKETMQ_ZONE_MODE: 'true'
    })
    expect(JSON.parse(f.get('staging/room1/proxy-1/rmq-proxy.json')!).namesrvDomain).toBe(
      'mgmt-1:8080'
    )
  })

  it('a plain proxy (zoneMode false) gets no zone; management.json lists every proxy', () => {
    const t = twoRooms((d) => {
      d.rooms[0].proxies = [{ id: 'proxy-plain', port: 8081, remotingPort: 8080, zoneMode: false }]
      d.rooms[1].proxies = [{ id: 'proxy-2' }]
    })
    const f = renderExport(t)
    const script = f.get('room1/proxy-plain/start-proxy.sh')!
    expect(script).toContain('unset ROCKETMQ_ZONE ROCKETMQ_ZONE_MODE')
    expect(script).not.toContain('export ROCKETMQ_ZONE')
    const compose = parseYaml(f.get('docker-compose.yml')!) as Doc
    expect(compose.services['proxy-plain'].environment).not.toHaveProperty('ROCKETMQ_ZONE')
    expect(JSON.parse(f.get('room2/mgmt-2/management.json')!).proxies).toEqual([
      {
        id: 'proxy-plain',
        room: 'room1',
        address: '<room1-proxy-plain-host>:8081',
        remotingAddress: '<room1-proxy-plain-host>:8080',
        zoneMode: false
      },
      {
        id: 'proxy-2',
        room: 'room2',
        address: '<room2-proxy-2-host>:<room2-proxy-2-port>',
        remotingAddress: '<room2-proxy-2-host>:<room2-proxy-2-remoting-port>',
        zoneMode: true
      }
    ])
    // Without proxies the key is left out (the golden two-rooms export is unchanged).
    expect(
      JSON.parse(renderExport(twoRooms()).get('room1/mgmt-1/management.json')!)
    ).not.toHaveProperty('proxies')
  })
})

describe('placeholders', () => {
  it('fills values, turning whole JSON port strings into numbers', () => {
    const json = '{"port": "<r-m-port>", "address": "<r-m-host>:<r-m-port>"}'
    expect(
      JSON.parse(
        fillPlaceholders(json, { '<r-m-port>': '8080', 'r-m-host': 'mgmt.example' }, { json: true })
      )
    ).toEqual({
      port: 8080,
      address: 'mgmt.example:8080'
    })
    expect(fillPlaceholders('a=<x-host>', {})).toBe('a=<x-host>')
    expect(findPlaceholders('a=<x-host> b=<x-host> c=<y-port>')).toEqual(['<x-host>', '<y-port>'])
  })

  it('writes given values into production files and leaves staging alone', () => {
    const t = twoRooms()
    const values = Object.fromEntries(
      listPlaceholderSpecs(t).map((p) => [p.token, p.field === 'port' ? '9999' : 'h.example'])
    )
    const f = renderExport(t, { values })
    for (const [path, text] of f) {
      if (/\.(conf|properties|json)$/.test(path) && !path.startsWith('staging/')) {
        expect(findPlaceholders(text), path).toEqual([])
      }
    }
    expect(JSON.parse(f.get('room1/mgmt-1/management.json')!).port).toBe(9999)
    expect(f.get('README.md')).toContain('None: the topology names every host')
  })

  it('lists every placeholder of the production files in the README', () => {
    const f = renderExport(threeRooms())
    const readme = f.get('README.md')!
    for (const [path, text] of f) {
      if (
        path.startsWith('staging/') ||
        path === 'README.md' ||
        !/\.(conf|properties|json)$/.test(path)
      )
        continue
      for (const token of findPlaceholders(text))
        expect(readme, `${token} from ${path}`).toContain('`' + token + '`')
    }
  })
})

describe('docker-compose.yml', () => {
  const t = threeRooms()
  const files = renderExport(t)
  const compose = parseYaml(files.get('docker-compose.yml')!) as Doc

  function checkServices(services: Doc) {
    const ids = ['mgmt-1', 'mgmt-2', 'mgmt-3', 'ns-1a', 'ns-1b', 'ns-2a', 'ns-2b', 'ns-3a', 'ns-3b']
    for (const id of ids) expect(services[id], id).toBeDefined()
    for (const b of [
      'broker-1m',
      'broker-1s',
      'broker-2m',
      'broker-2s',
      'broker-3m',
      'broker-3s'
    ]) {
      const s = services[b]
      expect(s.image).toBe('apache/rocketmq:5.3.3')
      expect(String(s.command)).toContain('mqbroker -c /home/rocketmq/conf/broker.conf')
      expect(s.environment.ROCKETMQ_ZONE).toBe(`room${b[7]}`)
      expect(s.networks).toBeDefined()
    }
    expect(String(services['ns-2a'].command)).toContain('mqnamesrv')
    expect(services['mgmt-1'].image).toBe('node:20')
    expect(String(services['mgmt-1'].command)).toContain('mgmt')
  }

  it('parses as YAML with one service per server node, official image and zones', () => {
    expect(compose.name).toBe('drstudio-three-rooms')
    checkServices(compose.services)
    expect(Object.keys(compose.services)).toHaveLength(3 + 6 + 6)
    for (const [name, s] of Object.entries<Doc>(compose.services)) {
      for (const dep of s.depends_on ?? [])
        expect(compose.services[dep], `${name} depends on ${dep}`).toBeDefined()
      for (const v of s.volumes ?? []) {
        const host = String(v).split(':')[0]!
        if (host.startsWith('./staging/')) expect(files.has(host.slice(2)), host).toBe(true)
      }
      for (const n of s.networks) expect(compose.networks[n]).toBeDefined()
    }
  })

  const composeAvailable =
    spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0
  it.skipIf(!composeAvailable)('passes `docker compose config` (needs no engine)', () => {
    const dir = tmp()
    exportTopology(t, { outDir: join(dir, 'out') })
    const r = spawnSync('docker', ['compose', 'config', '--format', 'json'], {
      cwd: join(dir, 'out'),
      encoding: 'utf8',
      env: { ...process.env, DRSTUDIO_HOME: dir }
    })
    expect(r.status, r.stderr).toBe(0)
    checkServices(JSON.parse(r.stdout).services)
  })
})

describe('diagrams', () => {
  const f = renderExport(threeRooms())

  it('topology.drawio is well-formed XML with a container per room holding its nodes', () => {
    const xml = f.get('topology.drawio')!
    expect(xmlProblems(xml)).toEqual([])
    for (const room of ['room1', 'room2', 'room3']) {
      expect(xml).toMatch(
        new RegExp(`<mxCell id="room-${room}"[^>]*style="swimlane;[^"]*container=1;`)
      )
    }
    expect(xml).toMatch(/<mxCell id="node-broker-2s"[^>]*parent="room-room2">/)
    expect(xml.match(/<mxCell id="node-/g)).toHaveLength(3 * 7)
  })

  it('topology.mmd is a flowchart with one subgraph per room', () => {
    const mmd = f.get('topology.mmd')!
    expect(mmd).toMatch(/^flowchart LR$/m)
    expect(mmd.match(/^\s*subgraph /gm)).toHaveLength(3)
    expect(mmd.match(/^\s*end$/gm)).toHaveLength(3)
    expect(mmd).toContain('n_broker_1s ==>|replicates| n_broker_1m')
  })

  it('the XML checker rejects broken documents', () => {
    expect(xmlProblems('<a><b></a>')).not.toEqual([])
    expect(xmlProblems('<a x=1/>')).not.toEqual([])
    expect(xmlProblems('<a x="1" x="2"/>')).not.toEqual([])
    expect(xmlProblems('<a>fish & chips</a>')).not.toEqual([])
    expect(xmlProblems('<a/><b/>')).not.toEqual([])
    expect(
      xmlProblems('<?xml version="1.0"?>\n<a t="&lt;x&gt;"><!-- c --><b/>t&amp;t</a>\n')
    ).toEqual([])
  })
})

describe('README.md', () => {
  it('puts lint errors first and gives the start order', () => {
    const t = twoRooms((d) => (d.rooms[1].nameServers = []))
    const readme = renderExport(t).get('README.md')!
    const findings = readme.indexOf('## Design findings')
    expect(findings).toBeGreaterThan(0)
    expect(findings).toBeLessThan(readme.indexOf('## Files'))
    expect(readme).toContain('**error** `room-without-nameserver` (room2)')
    const order = [
      '**Management nodes**',
      '**Name servers**',
      '**Brokers**',
      '**Topics**',
      '**Clients**'
    ].map((s) => readme.indexOf(s))
    expect(order.every((i) => i > 0)).toBe(true)
    expect([...order].sort((a, b) => a - b)).toEqual(order)
    expect(readme).toContain('updateTopic -n')
  })

  it('records the latest results, or says none were run', () => {
    expect(renderExport(twoRooms()).get('README.md')).toContain('No scenario has been run')
    const readme = renderExport(twoRooms(), {
      results: {
        scenarios: [{ scenario: 'room1-down', verdict: 'pass', rtoMs: 950, lost: 0, endedAt: 0 }]
      }
    }).get('README.md')!
    expect(readme).toContain(
      '| room1-down | pass | 950 ms | 0 | - | - | 1970-01-01T00:00:00.000Z |'
    )
  })

  it('omits the findings section when only info findings remain', () => {
    const t = twoRooms((d) => {
      d.rooms[1].brokers.push({
        id: 'broker-1r',
        cluster: 'DrCluster',
        brokerName: 'broker-a',
        role: 'slave',
        brokerId: 1
      })
      d.rooms[0].brokers.push({
        id: 'broker-2r',
        cluster: 'DrCluster',
        brokerName: 'broker-b',
        role: 'slave',
        brokerId: 1
      })
    })
    expect(renderExport(t).get('README.md')).not.toContain('## Design findings')
  })
})

describe('start scripts', () => {
  const dir = tmp()
  const out = join(dir, 'out')
  exportTopology(twoRooms(), { outDir: out, drstudioCommand: 'node /opt/drstudio/bin/drstudio.js' })

  it('are valid sh and executable', () => {
    for (const f of [
      'room1/broker-1/start-broker.sh',
      'room1/ns-1/start-namesrv.sh',
      'room1/mgmt-1/start-management.sh'
    ]) {
      const p = join(out, f)
      expect(statSync(p).mode & 0o111, f).not.toBe(0)
      const r = spawnSync('sh', ['-n', p], { encoding: 'utf8' })
      expect(r.status, `${f}: ${r.stderr}`).toBe(0)
    }
    expect(readFileSync(join(out, 'room1/mgmt-1/start-management.sh'), 'utf8')).toContain(
      `exec node /opt/drstudio/bin/drstudio.js mgmt --config "$(pwd)/management.json"`
    )
  })

  it('refuse to start while placeholders remain, then launch mqbroker with the zone', () => {
    const home = join(dir, 'rmq-home')
    mkdirSync(join(home, 'bin'), { recursive: true })
    writeFileSync(
      join(home, 'bin/mqbroker'),
      'echo "zone=$ROCKETMQ_ZONE ns=${NAMESRV_ADDR:-unset} args=$*"\n'
    )
    chmodSync(join(home, 'bin/mqbroker'), 0o755)
    const script = join(out, 'room1/broker-1/start-broker.sh')
    const env = { ...process.env, ROCKETMQ_HOME: home, NAMESRV_ADDR: '1.2.3.4:9876' }
    const refused = spawnSync('sh', [script], { encoding: 'utf8', env })
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('<room1-broker-1-host>')

    const conf = join(out, 'room1/broker-1/broker.conf')
    writeFileSync(
      conf,
      fillPlaceholders(readFileSync(conf, 'utf8'), {
        'room1-broker-1-host': '10.1.0.5',
        'room1-broker-1-port': '10911',
        'room1-broker-1-store-root': '/data/rmq',
        'room1-mgmt-1-host': '10.1.0.2',
        'room1-mgmt-1-port': '8080'
      })
    )
    const started = spawnSync('sh', [script], { encoding: 'utf8', env })
    expect(started.status, started.stderr).toBe(0)
    expect(started.stdout.trim()).toBe(
      `zone=room1 ns=unset args=-c ${join(out, 'room1/broker-1')}/broker.conf`
    )
  })
})

describe('exportTopology', () => {
  it('writes every rendered file and a manifest', () => {
    const out = join(tmp(), 'out')
    const { files } = exportTopology(twoRooms(), { outDir: out })
    expect(files).toContain('README.md')
    expect(files).toContain(MANIFEST_FILE)
    for (const f of files) expect(existsSync(join(out, f)), f).toBe(true)
  })

  it('replaces an earlier export, removing files that no longer exist', () => {
    const out = join(tmp(), 'out')
    exportTopology(threeRooms(), { outDir: out })
    expect(existsSync(join(out, 'room3/broker-3m/broker.conf'))).toBe(true)
    writeFileSync(join(out, 'notes.txt'), 'mine')
    exportTopology(twoRooms(), { outDir: out })
    expect(existsSync(join(out, 'room3'))).toBe(false)
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine')
  })

  it('refuses a non-empty folder it did not write', () => {
    const out = tmp()
    writeFileSync(join(out, 'important.txt'), 'x')
    expect(() => exportTopology(twoRooms(), { outDir: out })).toThrow(ExportError)
    expect(() => exportTopology(twoRooms(), { outDir: out })).toThrow(/not empty/)
  })
})
