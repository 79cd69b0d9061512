import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  jsonPath,
  loadManagementConfig,
  ManagementConfigError,
  parseManagementConfig
} from './config'

const valid = {
  id: 'mgmt-room1',
  room: 'room1',
  nameServers: [
    { id: 'ns1', room: 'room1', address: '127.0.0.1:9876' },
    { id: 'ns2', room: 'room2', address: '127.0.0.1:9877' }
  ]
}

describe('management config', () => {
  it('fills defaults', () => {
    expect(parseManagementConfig(valid)).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      probeIntervalMs: 1000,
      probeTimeoutMs: 500,
      failuresBeforeDown: 1,
      successesBeforeUp: 1
    })
  })

  it('names the JSON path of each problem', () => {
    const bad = {
      ...valid,
      probeIntervalMs: 200,
      probeTimeoutMs: 400,
      nameServers: [
        { id: 'ns1', room: 'room1', address: 'localhost' },
        { id: 'ns1', room: 'room2', address: '127.0.0.1:99999' }
      ]
    }
    let err: ManagementConfigError | undefined
    try {
      parseManagementConfig(bad, 'x.json')
    } catch (e) {
      err = e as ManagementConfigError
    }
    expect(err).toBeInstanceOf(ManagementConfigError)
    expect(err?.message).toContain('x.json')
    expect(err?.issues.join('\n')).toContain('$.nameServers[0].address: expected "host:port"')
    expect(err?.issues.join('\n')).toContain('$.nameServers[1].address: port must be 1-65535')
    expect(err?.issues.join('\n')).toContain('$.nameServers[1].id: duplicate id "ns1"')
    expect(err?.issues.join('\n')).toContain(
      '$.probeTimeoutMs: must not exceed probeIntervalMs (200)'
    )
  })

  it('refuses timeoutsBeforeDown below failuresBeforeDown, naming both', () => {
    expect(() =>
      parseManagementConfig({ ...valid, failuresBeforeDown: 3, timeoutsBeforeDown: 2 }, 'm.json')
    ).toThrow(/\$\.timeoutsBeforeDown: must be at least failuresBeforeDown \(3\)/)
    // Set alone, failuresBeforeDown is accepted: the node then needs as many timeouts.
    expect(parseManagementConfig({ ...valid, failuresBeforeDown: 3 })).toMatchObject({
      failuresBeforeDown: 3
    })
  })

  it('rejects unknown keys (typos) and empty lists', () => {
    expect(() => parseManagementConfig({ ...valid, probeIntervalMS: 5 })).toThrow(/probeIntervalMS/)
    expect(() => parseManagementConfig({ ...valid, nameServers: [] })).toThrow(/\$\.nameServers/)
  })

  it('reports missing files and bad JSON with the file name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgmt-config-'))
    await expect(loadManagementConfig(join(dir, 'nope.json'))).rejects.toThrow(
      /nope\.json.*no such file/
    )
    const broken = join(dir, 'broken.json')
    writeFileSync(broken, '{"id": ')
    await expect(loadManagementConfig(broken)).rejects.toThrow(/broken\.json: not valid JSON/)
    const good = join(dir, 'good.json')
    writeFileSync(good, JSON.stringify(valid))
    await expect(loadManagementConfig(good)).resolves.toMatchObject({ id: 'mgmt-room1' })
  })

  it('takes an optional proxies list (zoneMode defaults to true) and checks it like name servers', () => {
    expect(parseManagementConfig(valid).proxies).toEqual([])
    const withProxies = parseManagementConfig({
      ...valid,
      proxies: [
        {
          id: 'proxy-1',
          room: 'room1',
          address: '127.0.0.1:8081',
          remotingAddress: '127.0.0.1:8080'
        },
        { id: 'proxy-plain', room: 'room1', address: '127.0.0.1:8091', zoneMode: false }
      ]
    })
    expect(withProxies.proxies).toEqual([
      {
        id: 'proxy-1',
        room: 'room1',
        address: '127.0.0.1:8081',
        remotingAddress: '127.0.0.1:8080',
        zoneMode: true
      },
      { id: 'proxy-plain', room: 'room1', address: '127.0.0.1:8091', zoneMode: false }
    ])
    let err: ManagementConfigError | undefined
    try {
      parseManagementConfig(
        {
          ...valid,
          proxies: [
            { id: 'p1', room: 'room1', address: '127.0.0.1:8081', remotingAddress: 'nope' },
            { id: 'p1', room: 'room1', address: '127.0.0.1:8081', grpc: true }
          ]
        },
        'p.json'
      )
    } catch (e) {
      err = e as ManagementConfigError
    }
    const issues = err?.issues.join('\n') ?? ''
    expect(issues).toContain('$.proxies[0].remotingAddress: expected "host:port"')
    expect(issues).toMatch(/\$\.proxies\[1\].*grpc/)
    // A proxy may share an id with a name server (separate lists), not with another proxy.
    expect(() =>
      parseManagementConfig({
        ...valid,
        proxies: [
          { id: 'p1', room: 'room1', address: '127.0.0.1:8081' },
          { id: 'p1', room: 'room2', address: '127.0.0.1:8082' }
        ]
      })
    ).toThrow('$.proxies[1].id: duplicate id "p1" (also at proxies[0])')
  })

  it('renders JSON paths', () => {
    expect(jsonPath([])).toBe('$')
    expect(jsonPath(['a', 0, 'b-c'])).toBe('$.a[0]["b-c"]')
  })
})
