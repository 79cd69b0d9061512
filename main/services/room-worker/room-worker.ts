import type { Readable, Writable } from 'node:stream'
import type { GrpcSdk } from '../clients/grpc-lane/sdk-port'
import type { ManagementPort, RemotingFactory } from '../clients/room-aware/ports'
import { httpManagement, httpManagementSession, systemClock } from '../clients/room-aware/ports'
import { RemotingRpc } from '../remoting/remoting-rpc'
import { NODE_LANES } from '../../../common/topology/lanes'
import { ClientRuntime, RuntimeError } from './client-runtime'
import type { EngineToWorker, TxFact, WorkerToEngine } from '../worker-wire/protocol'
import { encodeFrame, FrameDecoder, PROTOCOL_VERSION } from '../worker-wire/protocol'
import { WireLedger } from './wire-ledger'

export interface RoomWorkerIo {
  input: Readable
  output: Writable
  /** Log lines (the worker's stderr). */
  log: (line: string) => void
  /** Called once when the worker is done (shutdown, or the engine went away). */
  exit: (code: number) => void
}

export interface RoomWorkerDeps {
  remoting?: RemotingFactory
  management?: ManagementPort
  /** rocketmq-client-nodejs, imported on the first grpc/baseline client (see ClientRuntimeDeps). */
  loadSdk?: () => Promise<GrpcSdk>
}

/**
 * A room worker: the room's producers and consumers in their own process (inside the room's
 * network namespace when there is one), driven by the engine over the framed protocol.
 */
export function runRoomWorker(io: RoomWorkerIo, deps: RoomWorkerDeps = {}): void {
  const send = (f: WorkerToEngine): void => void io.output.write(encodeFrame(f))
  const ledger = new WireLedger(
    (rows) => send({ t: 'rows', rows }),
    () => systemClock.now()
  )
  // Batched like the ledger's rows: one frame per 50 ms however many transactions ran.
  let facts: TxFact[] = []
  const shareTransaction = (fact: TxFact): void => {
    if (facts.length === 0) {
      setTimeout(() => {
        send({ t: 'tx-ran', facts })
        facts = []
      }, 50).unref()
    }
    facts.push(fact)
  }
  // One kept-alive session per management node for the whole worker (its client cores share it).
  const session = deps.management ? undefined : httpManagementSession()
  const runtime = new ClientRuntime({
    remoting: deps.remoting ?? ((o) => new RemotingRpc(o)),
    management: deps.management ?? session ?? httpManagement,
    ...(deps.loadSdk ? { loadSdk: deps.loadSdk } : {}),
    ledger,
    clock: systemClock,
    onChoice: (choice) => send({ t: 'choice', choice }),
    onTransaction: (fact) => shareTransaction(fact)
  })
  let done = false
  const finish = async (mode: 'graceful' | 'crash', code: number): Promise<void> => {
    if (done) return
    done = true
    await runtime.stopAll(mode).catch((e: Error) => io.log(`stopping clients: ${e.message}`))
    session?.close()
    ledger.flush()
    io.exit(code)
  }

  const handle = async (req: EngineToWorker): Promise<unknown> => {
    if (req.op === 'hello') {
      return {
        protocol: PROTOCOL_VERSION,
        runtime: 'node',
        pid: process.pid,
        lanes: [...NODE_LANES]
      }
    }
    return runtime.handle(req.op, req.args as never)
  }

  const decoder = new FrameDecoder()
  io.input.on('data', (chunk: Buffer) => {
    let frames: unknown[]
    try {
      frames = decoder.push(chunk)
    } catch (e) {
      io.log(`bad frame from the engine: ${(e as Error).message}`)
      void finish('crash', 2)
      return
    }
    for (const f of frames) {
      const req = f as EngineToWorker
      void handle(req).then(
        (result) => {
          // Rows a request produced reach the engine before its answer.
          ledger.flush()
          send({ t: 'res', id: req.id, ok: true, result })
          if (req.op === 'shutdown') void finish('graceful', 0)
        },
        (e: Error) => {
          ledger.flush()
          const code = e instanceof RuntimeError ? e.code : 'failed'
          send({ t: 'res', id: req.id, ok: false, error: { message: e.message, code } })
        }
      )
    }
  })
  // EOF on stdin: the engine is gone (or closed us); crash-stop without a drain.
  io.input.on('end', () => void finish('crash', 0))
  io.input.on('error', () => void finish('crash', 0))
}
