import { createServer } from 'node:net'
import { PortBusyError, SandboxError } from './errors'

/** Answers whether a TCP port can be bound right now; injected so tests need no sockets. */
export interface PortProbe {
  isFree(port: number): Promise<boolean>
}

/** The node kinds that bind ports in the sandbox. */
export type PortedKind = 'nameserver' | 'broker' | 'management' | 'proxy' | 'controller'

/** One node asking for ports; `port`/`remotingPort` are explicit topology values to honour. */
export interface PortRequest {
  nodeId: string
  kind: PortedKind
  /** JSON path of the node, so a busy-port error can point at the line to edit. */
  path?: string
  port?: number
  remotingPort?: number
  /** A name server's embedded controller: its explicit port, or true to have one allocated. */
  controllerPort?: number | true
}

/** What a node got: its main port and every port it will bind. */
export interface PortAssignment {
  nodeId: string
  port: number
  /** Proxy only: the remoting listener next to the gRPC port. */
  remotingPort?: number
  /** Name server with an embedded controller: the controller's (DLedger) port. */
  controllerPort?: number
  ports: number[]
  explicit: boolean
}

export interface AllocateOptions {
  /** Half-open range auto-allocated blocks come from; below Linux's ephemeral range by default. */
  range?: [number, number]
  /** Ports that must never be handed out (attached nodes, other sandboxes). */
  reserved?: Iterable<number>
  /** Source of randomness for the first block tried, so parallel sandboxes rarely collide. */
  random?: () => number
}

/** Every auto-allocated node gets an aligned block this wide; the main port sits at offset 2. */
export const BLOCK = 4
const MAIN_OFFSET = 2
export const DEFAULT_PORT_RANGE: [number, number] = [20000, 32000]

/**
 * Ports a node binds relative to its main port: a broker adds the fast channel (-2) and HA (+1), a
 * proxy its remoting port, a name server the port of the controller it embeds (`second`).
 */
export function boundPorts(kind: PortedKind, port: number, second?: number): number[] {
  switch (kind) {
    case 'broker':
      return [port - 2, port, port + 1]
    case 'proxy':
      return [port, second ?? port + 1]
    case 'nameserver':
      return second === undefined ? [port] : [port, second]
    case 'controller':
    case 'management':
      return [port]
  }
}

/** The explicit second port of a request (proxy remoting, embedded controller), if any. */
function secondOf(req: PortRequest): number | undefined {
  if (req.kind === 'proxy') return req.remotingPort
  return typeof req.controllerPort === 'number' ? req.controllerPort : undefined
}

/** Where an auto-allocated block puts the second port, and what the assignment calls it. */
function secondFields(req: PortRequest, ports: number[]): Partial<PortAssignment> {
  if (req.kind === 'proxy') return { remotingPort: ports[1] }
  if (req.kind === 'nameserver' && req.controllerPort !== undefined)
    return { controllerPort: ports[1] }
  return {}
}

function busyMessage(req: PortRequest, port: number): string {
  const extra =
    req.kind === 'broker' && port !== req.port
      ? ` (a broker on ${req.port} also binds ${req.port! - 2} for its fast channel and ${req.port! + 1} for HA)`
      : ''
  const where = req.path ? ` at ${req.path}` : ''
  return (
    `Port ${port} of node ${req.nodeId} is already in use${extra}. ` +
    `Stop the process holding it (find it with \`ss -ltnp 'sport = :${port}'\` or \`lsof -i :${port}\`), ` +
    `or remove "port" from node ${req.nodeId}${where} so DR Studio picks a free one.`
  )
}

/**
 * Honours explicit ports (all of a node's bound ports must be free) and gives every other node an
 * aligned block of free ports, so a broker's listenPort-2, listenPort and listenPort+1 are all free.
 */
export async function allocatePorts(
  requests: PortRequest[],
  probe: PortProbe,
  options: AllocateOptions = {}
): Promise<Map<string, PortAssignment>> {
  const [lo, hi] = options.range ?? DEFAULT_PORT_RANGE
  const random = options.random ?? Math.random
  const taken = new Set<number>(options.reserved ?? [])
  const out = new Map<string, PortAssignment>()

  for (const req of requests) {
    if (req.port === undefined && req.remotingPort !== undefined) {
      throw new SandboxError(
        'topology',
        `Node ${req.nodeId} sets "remotingPort" but not "port"; set both, or neither to let DR Studio pick.`,
        { nodeId: req.nodeId }
      )
    }
    if (req.port === undefined && typeof req.controllerPort === 'number') {
      throw new SandboxError(
        'topology',
        `Name server ${req.nodeId} sets "controller.port" but not "port"; set both, or neither to let DR Studio pick.`,
        { nodeId: req.nodeId }
      )
    }
    if (req.port !== undefined && req.controllerPort === true) {
      throw new SandboxError(
        'topology',
        `Name server ${req.nodeId} sets "port" but its embedded controller has none; add "controller": { "port": … }, or remove "port".`,
        { nodeId: req.nodeId }
      )
    }
  }
  const explicit = requests.filter((r) => r.port !== undefined)
  for (const req of explicit) {
    for (const p of boundPorts(req.kind, req.port!, secondOf(req))) {
      if (p < 1 || p > 65535) {
        throw new SandboxError(
          'topology',
          `Node ${req.nodeId} needs port ${p}, which is outside 1-65535; choose another "port".`,
          { nodeId: req.nodeId }
        )
      }
      if (taken.has(p)) {
        throw new SandboxError(
          'topology',
          `Port ${p} of node ${req.nodeId} is also used by another node of the topology; give each node its own ports.`,
          { nodeId: req.nodeId }
        )
      }
      taken.add(p)
    }
  }
  for (const req of explicit) {
    const ports = boundPorts(req.kind, req.port!, secondOf(req))
    for (const p of ports) {
      if (!(await probe.isFree(p))) throw new PortBusyError(req.nodeId, p, busyMessage(req, p))
    }
    out.set(req.nodeId, {
      nodeId: req.nodeId,
      port: req.port!,
      ...secondFields(req, ports),
      ports,
      explicit: true
    })
  }

  const blocks = Math.floor((hi - lo) / BLOCK)
  if (blocks <= 0) throw new SandboxError('no-free-port', `Port range ${lo}-${hi} is too small.`)
  let cursor = Math.floor(random() * blocks)
  let scanned = 0
  for (const req of requests) {
    if (req.port !== undefined) continue
    let assigned: PortAssignment | undefined
    while (!assigned) {
      if (scanned >= blocks) {
        throw new SandboxError(
          'no-free-port',
          `No free block of ${BLOCK} ports left in ${lo}-${hi} for node ${req.nodeId}; stop other servers or sandboxes and retry.`,
          { nodeId: req.nodeId }
        )
      }
      const base = lo + (cursor % blocks) * BLOCK
      cursor++
      scanned++
      const main = base + MAIN_OFFSET
      const ports = boundPorts(req.kind, main, req.controllerPort === true ? main + 1 : undefined)
      if (ports.some((p) => taken.has(p) || p < base || p >= base + BLOCK)) continue
      let free = true
      for (const p of ports) {
        if (!(await probe.isFree(p))) {
          free = false
          break
        }
      }
      if (!free) continue
      for (const p of ports) taken.add(p)
      assigned = {
        nodeId: req.nodeId,
        port: main,
        ...secondFields(req, ports),
        ports,
        explicit: false
      }
    }
    out.set(req.nodeId, assigned)
  }
  return out
}

/** Real probe: binds the wildcard address, which also collides with loopback-only listeners. */
export const tcpPortProbe: PortProbe = {
  isFree(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const server = createServer()
      server.unref()
      server.once('error', () => resolve(false))
      server.listen({ port, host: '0.0.0.0', exclusive: true }, () => {
        server.close(() => resolve(true))
      })
    })
  }
}
