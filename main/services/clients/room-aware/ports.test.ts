import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { httpManagement, httpManagementSession } from './ports'

const closers: (() => void)[] = []
afterEach(() => {
  for (const c of closers.splice(0)) c()
})

/** A real management endpoint on loopback, counting the TCP connections it accepts. */
async function endpoint() {
  const sockets: Socket[] = []
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(
      JSON.stringify({
        room: 'room1',
        nameServers: [{ id: 'ns-1', room: 'room1', address: 'a:9876' }]
      })
    )
  })
  server.on('connection', (s: Socket) => sockets.push(s))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  closers.push(() => {
    server.closeAllConnections()
    server.close()
  })
  const port = (server.address() as AddressInfo).port
  return { sockets, node: { id: 'mgmt-1', room: 'room1', url: `http://127.0.0.1:${port}` } }
}

describe('management calls', () => {
  it('a worker session keeps one connection for its refreshes; plain calls open one each', async () => {
    const kept = await endpoint()
    const session = httpManagementSession()
    closers.push(() => session.close())
    for (let i = 0; i < 3; i++) await session.fetchNameServers(kept.node, 1000)
    expect(kept.sockets).toHaveLength(1)
    const plain = await endpoint()
    for (let i = 0; i < 3; i++) await httpManagement.fetchNameServers(plain.node, 1000)
    expect(plain.sockets).toHaveLength(3)
  })

  it('retries once on a new connection when the server closed the kept one meanwhile', async () => {
    const e = await endpoint()
    const session = httpManagementSession()
    closers.push(() => session.close())
    await session.fetchNameServers(e.node, 1000)
    // The server resets the idle socket; the agent may still hand it out.
    for (const s of e.sockets) s.resetAndDestroy()
    const answer = await session.fetchNameServers(e.node, 1000)
    expect(answer.nameServers[0]?.id).toBe('ns-1')
  })

  it('fails at once when the node is gone', async () => {
    const e = await endpoint()
    const session = httpManagementSession()
    closers.push(() => session.close())
    await session.fetchNameServers(e.node, 1000)
    for (const c of closers.splice(0, 1)) c()
    await expect(session.fetchNameServers(e.node, 1000)).rejects.toThrow(
      /ECONNREFUSED|socket hang up|ECONNRESET/
    )
  })
})
