import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import type { NodeProcess } from './node-process'
import {
  httpManagementNameServers,
  learningMessage,
  learnNameServers,
  nameServerAddresses
} from './launch-discovery'

const URL = 'http://10.0.0.1:8080/v1/nameservers'

describe('nameServerAddresses', () => {
  it('keeps every listed address in order, available or not, once each', () => {
    const body = {
      nameServers: [
        { id: 'ns-2', address: '10.0.2.10:9876', available: true },
        { id: 'ns-1', address: '10.0.1.10:9876', available: false },
        { id: 'ns-1b', address: '10.0.2.10:9876', available: true }
      ]
    }
    expect(nameServerAddresses(body, URL)).toEqual(['10.0.2.10:9876', '10.0.1.10:9876'])
  })

  it('drops entries that are not host:port and refuses a body with none left', () => {
    const body = { nameServers: [{ address: 'a;b:1' }, { address: 42 }, null, { address: 'h:7' }] }
    expect(nameServerAddresses(body, URL)).toEqual(['h:7'])
    for (const bad of [null, {}, { nameServers: 'x' }, { nameServers: [] }, { nameServers: [{}] }])
      expect(() => nameServerAddresses(bad, URL)).toThrow(`${URL} listed no name server`)
  })
})

const node = (id: string, kind: string, room: string, port = 1): NodeProcess =>
  ({ id, kind, room, host: '127.0.0.1', port }) as unknown as NodeProcess

describe('learnNameServers', () => {
  it('asks each room’s management node once and reports a refusal as that room’s fallback', async () => {
    const asked: string[] = []
    const learned = await learnNameServers(
      {
        nameServersOf: async (address) => {
          asked.push(address)
          if (address.endsWith(':2')) throw new Error('HTTP 503')
          return ['n:1']
        }
      },
      [node('b1', 'broker', 'r1'), node('b1s', 'broker', 'r1'), node('b2', 'broker', 'r2')],
      (room) =>
        room === 'r1' ? node('m1', 'management', 'r1', 1) : node('m2', 'management', 'r2', 2),
      100
    )
    expect(asked).toEqual(['127.0.0.1:1', '127.0.0.1:2'])
    expect(learned).toEqual([
      { room: 'r1', management: 'm1', namesrvAddr: ['n:1'] },
      { room: 'r2', management: 'm2', error: 'HTTP 503' }
    ])
    expect(learningMessage(learned[1]!)).toBe(
      'm2 did not list the name servers (HTTP 503); the broker fetches them from it itself, 10 s after boot'
    )
  })

  it('skips a room without a management node', async () => {
    const learned = await learnNameServers(
      { nameServersOf: async () => ['n:1'] },
      [node('b', 'broker', 'r9')],
      () => undefined,
      100
    )
    expect(learned).toEqual([])
  })
})

describe('httpManagementNameServers', () => {
  it('reads GET /v1/nameservers and names the URL when the node answers an error', async () => {
    let status = 200
    const server = createServer((req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ nameServers: [{ address: '10.1.1.1:9876' }], path: req.url }))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const address = `127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      expect(await httpManagementNameServers.nameServersOf(address, 2000)).toEqual([
        '10.1.1.1:9876'
      ])
      status = 503
      await expect(httpManagementNameServers.nameServersOf(address, 2000)).rejects.toThrow(
        `http://${address}/v1/nameservers answered HTTP 503`
      )
    } finally {
      server.close()
    }
  })
})
