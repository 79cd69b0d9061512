// A stand-in "node" for the network-lab test, started inside a node namespace with the lab's
// spawnPrefix. It serves echo (7000/tcp), a byte sink (7002/tcp) and a datagram counter
// (7001/udp), and takes probe orders as JSON lines on 7100/tcp, which the test reaches from the
// host namespace (engine↔node traffic is never faulted, so that channel survives every fault).
import { createSocket } from 'node:dgram'
import { connect, createServer } from 'node:net'
import { performance } from 'node:perf_hooks'

const ECHO = 7000
const UDP = 7001
const SINK = 7002
const CONTROL = 7100

const udpCounts = new Map()
const conns = new Map()

createServer((s) => {
  s.on('error', () => {})
  s.pipe(s)
}).listen(ECHO)

createServer((s) => {
  let n = 0
  s.on('error', () => {})
  s.on('data', (d) => (n += d.length))
  s.on('end', () => s.end(String(n)))
}).listen(SINK)

const udp = createSocket('udp4')
udp.on('message', (msg) => {
  const tag = msg.toString().split(':')[0]
  udpCounts.set(tag, (udpCounts.get(tag) ?? 0) + 1)
})
udp.bind(UDP)

/** Tries one TCP connect: 'connected', 'timeout' (nothing came back) or the error code. */
function tryConnect({ host, port, timeoutMs }) {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    const timer = setTimeout(() => {
      s.destroy()
      resolve({ result: 'timeout' })
    }, timeoutMs)
    s.once('connect', () => {
      clearTimeout(timer)
      s.destroy()
      resolve({ result: 'connected' })
    })
    s.once('error', (e) => {
      clearTimeout(timer)
      resolve({ result: e.code ?? e.message })
    })
  })
}

function open({ id, host, port }) {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    const state = { socket: s, error: null, waiters: [] }
    s.setNoDelay(true)
    s.on('data', () => state.waiters.shift()?.(null))
    s.on('error', (e) => {
      state.error = e.code ?? e.message
      for (const w of state.waiters.splice(0)) w(state.error)
    })
    s.once('connect', () => {
      conns.set(id, state)
      resolve({ result: 'open' })
    })
    s.once('error', (e) => resolve({ result: e.code ?? e.message }))
  })
}

/** Round trips of one byte on an open connection, in ms; stops at the first error. */
async function rtt({ id, count, timeoutMs = 5000 }) {
  const state = conns.get(id)
  if (!state) return { error: `no connection ${id}` }
  const rtts = []
  for (let i = 0; i < count; i++) {
    if (state.error) return { rtts, error: state.error }
    const t0 = performance.now()
    const err = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), timeoutMs)
      state.waiters.push((e) => {
        clearTimeout(timer)
        resolve(e)
      })
      state.socket.write('x')
    })
    if (err) return { rtts, error: err }
    rtts.push(performance.now() - t0)
  }
  return { rtts }
}

async function sendUdp({ host, port, tag, count }) {
  const s = createSocket('udp4')
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => s.send(`${tag}:${i}`, port, host, () => resolve()))
    // Pace a little so no socket or device queue overflows: only the fault may lose packets.
    if (i % 20 === 19) await new Promise((r) => setTimeout(r, 2))
  }
  s.close()
  return { sent: count }
}

function bulk({ host, port, bytes, timeoutMs }) {
  return new Promise((resolve) => {
    const t0 = performance.now()
    const s = connect({ host, port })
    const timer = setTimeout(() => {
      s.destroy()
      resolve({ error: 'timeout' })
    }, timeoutMs)
    let reply = ''
    s.once('connect', () => {
      const chunk = Buffer.alloc(64 * 1024)
      let sent = 0
      const pump = () => {
        while (sent < bytes) {
          sent += chunk.length
          if (!s.write(chunk)) return s.once('drain', pump)
        }
        s.end()
      }
      pump()
    })
    s.on('data', (d) => (reply += d))
    s.once('end', () => {
      clearTimeout(timer)
      resolve({ bytes: Number(reply), ms: performance.now() - t0 })
    })
    s.once('error', (e) => {
      clearTimeout(timer)
      resolve({ error: e.code ?? e.message })
    })
  })
}

const ops = {
  connect: tryConnect,
  open,
  rtt,
  udp: sendUdp,
  udpCount: ({ tag }) => ({ count: udpCounts.get(tag) ?? 0 }),
  bulk
}

createServer((s) => {
  let buf = ''
  s.on('error', () => {})
  s.on('data', async (d) => {
    buf += d
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      const req = JSON.parse(line)
      const op = ops[req.op]
      const res = op ? await op(req) : { error: `unknown op ${req.op}` }
      s.write(JSON.stringify({ seq: req.seq, ...res }) + '\n')
    }
  })
}).listen(CONTROL, () => console.log('ready'))
