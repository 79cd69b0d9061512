import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseTopologyText } from '../../common/topology'
import { clusterInfo, fakeDiscoveryPort, queue } from '../services/attach/testing-fakes'
import { runDiscoverCommand } from './discover-command'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-discover-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function sink() {
  let text = ''
  return {
    write: (s: string) => (text += s),
    get text() {
      return text
    }
  }
}

const zoned = clusterInfo([
  { brokerName: 'broker-a', zone: 'room1', addrs: { 0: '10.1.0.2:10911' } },
  { brokerName: 'broker-b', zone: 'room2', addrs: { 0: '10.2.0.2:10911' } }
])
const ns = { info: zoned, routes: { payments: [queue('broker-a'), queue('broker-b')] } }
const port = () => fakeDiscoveryPort({ '10.1.0.2:9876': ns, '10.2.0.2:9876': ns })

describe('drstudio discover', () => {
  it('writes the topology, progress on stderr, summary on stdout', async () => {
    const out = join(dir, 'a', 'topology.json')
    const stdout = sink()
    const stderr = sink()
    const code = await runDiscoverCommand(
      { namesrv: '10.1.0.2:9876;10.2.0.2:9876', out, topic: 'payments', clients: true },
      { stdout, stderr, port: port() }
    )
    expect(code).toBe(0)
    const parsed = parseTopologyText(readFileSync(out, 'utf8'))
    expect(parsed.ok).toBe(true)
    expect(stderr.text).toContain('drstudio discover: asking 2 name servers for the cluster (0/2)')
    expect(stderr.text).toContain(
      'drstudio discover: topic check: topic "payments": room1 4 queue(s), room2 4 queue(s)'
    )
    expect(stdout.text).toContain('room1  ns-1 10.1.0.2:9876')
    expect(stdout.text).toContain('broker-a M 10.1.0.2:10911')
    expect(stdout.text).toMatch(
      /wrote .*topology\.json: 2 room\(s\), 1 topic\(s\), every node attached/
    )
  })

  it('refuses to overwrite without --force, before asking anyone', async () => {
    const out = join(dir, 'exists.json')
    writeFileSync(out, '{}')
    const p = port()
    await expect(
      runDiscoverCommand(
        { namesrv: '10.1.0.2:9876', out },
        { stdout: sink(), stderr: sink(), port: p }
      )
    ).rejects.toThrow(/already exists; pass --force to overwrite it/)
    expect(p.calls).toEqual([])
    const code = await runDiscoverCommand(
      { namesrv: '10.1.0.2:9876;10.2.0.2:9876', out, force: true },
      { stdout: sink(), stderr: sink(), port: p }
    )
    expect(code).toBe(0)
    expect(readFileSync(out, 'utf8')).toContain('"drstudio/topology"')
  })

  it('lists unplaced nodes with their fixes and writes nothing', async () => {
    const out = join(dir, 'unplaced.json')
    const stderr = sink()
    const code = await runDiscoverCommand(
      { namesrv: '10.9.0.1:9876', out },
      { stdout: sink(), stderr, port: fakeDiscoveryPort({ '10.9.0.1:9876': ns }) }
    )
    expect(code).toBe(1)
    expect(existsSync(out)).toBe(false)
    expect(stderr.text).toContain('1 problem(s); nothing was written')
    expect(stderr.text).toContain(
      '  - name server 10.9.0.1:9876: name servers carry no zone and no rule names this one\n' +
        '    fix: add "10.9.0.1:9876: <room>" to the rooms map (--rooms-map FILE), or use --namesrv-rooms-by-host REGEX'
    )
  })

  it('reads a rooms map file and says which file is unreadable', async () => {
    const map = join(dir, 'rooms.yaml')
    writeFileSync(map, '10.9.0.1:9876: room1\n')
    const out = join(dir, 'mapped.json')
    const code = await runDiscoverCommand(
      { namesrv: '10.9.0.1:9876', out, rooms: 'zone', roomsMap: map, json: true },
      { stdout: sink(), stderr: sink(), port: fakeDiscoveryPort({ '10.9.0.1:9876': ns }) }
    )
    expect(code).toBe(0)
    await expect(
      runDiscoverCommand(
        { namesrv: 'h:1', out: join(dir, 'x.json'), roomsMap: join(dir, 'nope.yaml') },
        { port: port() }
      )
    ).rejects.toThrow(/--rooms-map: cannot read .*nope\.yaml/)
  })

  it('checks its arguments', async () => {
    const io = { stdout: sink(), stderr: sink(), port: port() }
    const out = join(dir, 'never.json')
    await expect(runDiscoverCommand({ out }, io)).rejects.toThrow(/pass --namesrv/)
    await expect(runDiscoverCommand({ namesrv: 'h', out }, io)).rejects.toThrow(
      /"h" is not host:port/
    )
    await expect(runDiscoverCommand({ namesrv: 'h:1', out, rooms: 'dc' }, io)).rejects.toThrow(
      /--rooms must be zone, map or name/
    )
    await expect(runDiscoverCommand({ namesrv: 'h:1', out, clients: true }, io)).rejects.toThrow(
      /--clients needs --topic/
    )
  })
})
