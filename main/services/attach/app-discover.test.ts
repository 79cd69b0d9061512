import { describe, expect, it } from 'vitest'
import { clusterDiscoverInputSchema, clusterDiscoverOutputSchema } from '../../../common/contract'
import { validateTopology } from '../../../common/topology'
import { discoverForApp, requestFromDialog } from './app-discover'
import type { DiscoveryProgress } from './discovery'
import { clusterInfo, fakeDiscoveryPort, queue } from './testing-fakes'

const info = clusterInfo([
  { brokerName: 'broker-a', addrs: { 0: '127.0.0.1:10911' } },
  { brokerName: 'broker-b', addrs: { 0: '127.0.0.1:10921' } }
])
const ns = { info, routes: { payments: [queue('broker-a')] } }
const servers = { '127.0.0.1:9876': ns, '127.0.0.1:9877': ns }
const input = (extra: Record<string, unknown>) =>
  clusterDiscoverInputSchema.parse({ namesrv: '127.0.0.1:9876;127.0.0.1:9877', ...extra })

describe('requestFromDialog', () => {
  it('maps the dialog fields, ignoring blank ones and a pattern outside pattern mode', () => {
    const req = requestFromDialog(
      input({ rooms: 'zone', roomMap: '  ', brokerPattern: '(x)', topic: ' ', clients: true })
    )
    expect(req).toMatchObject({
      namesrv: ['127.0.0.1:9876', '127.0.0.1:9877'],
      mode: 'zone',
      clients: false
    })
    expect(req.roomMap).toBeUndefined()
    expect(req.brokerPattern).toBeUndefined()
    expect(req.topic).toBeUndefined()
  })

  it('names the field in its errors', () => {
    expect(() => requestFromDialog(input({ namesrv: 'nohost' }))).toThrow(
      /^Name servers: "nohost" is not host:port/
    )
  })
})

describe('discoverForApp', () => {
  it('opens an untitled topology, rooms by map, with progress and the topic check', async () => {
    const progress: DiscoveryProgress[] = []
    const out = await discoverForApp(
      input({
        rooms: 'map',
        roomMap: 'room1: [broker-a, "127.0.0.1:9876"]\nroom2: [broker-b, "127.0.0.1:9877"]',
        topic: 'payments',
        clients: true
      }),
      (p) => progress.push(p),
      fakeDiscoveryPort(servers)
    )
    expect(clusterDiscoverOutputSchema.safeParse(out).success).toBe(true)
    expect(out.ok).toBe(true)
    expect(out.opened?.path).toBeNull()
    expect(validateTopology(out.opened?.document).ok).toBe(true)
    expect(out.rooms).toEqual([
      { id: 'room1', name: 'room1', nameServers: 1, brokers: 1 },
      { id: 'room2', name: 'room2', nameServers: 1, brokers: 1 }
    ])
    expect(out.topic?.ok).toBe(false)
    expect(out.topic?.lines[0]).toBe(
      'topic "payments" has no writable queues in room2 (brokers broker-b), so producers there would cross rooms from the start'
    )
    expect(out.topic?.lines[2]).toContain('tick “Let DR Studio create the topic”')
    expect(progress.at(-1)?.step).toBe('done')
  })

  it('answers problems in the dialog’s words instead of a topology', async () => {
    const out = await discoverForApp(input({}), () => {}, fakeDiscoveryPort(servers))
    expect(out.ok).toBe(false)
    expect(out.opened).toBeNull()
    expect(out.problems.map((p) => p.code)).toEqual([
      'broker-unplaced',
      'broker-unplaced',
      'namesrv-unplaced',
      'namesrv-unplaced'
    ])
    expect(out.problems[0]?.fix).toContain('the Room map')
  })

  it('needs name servers or an address server', async () => {
    await expect(
      discoverForApp(input({ namesrv: '' }), () => {}, fakeDiscoveryPort({}))
    ).rejects.toThrow(/enter the name servers/)
  })
})
