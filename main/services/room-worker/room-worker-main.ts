import { format } from 'node:util'
import { loadOfficialSdk } from '../clients/grpc-lane/official-sdk'
import { runRoomWorker } from './room-worker'

/**
 * Child-process entry of a room worker: `drstudio worker` (built) or
 * `node --import tsx main/services/room-worker/room-worker-main.ts`. stdout carries protocol frames
 * only, so every console method writes to stderr (the worker's log).
 */
export function roomWorkerMain(): void {
  const toStderr = (...args: unknown[]): void => void process.stderr.write(format(...args) + '\n')
  console.log = console.info = console.warn = console.debug = toStderr
  process.on('uncaughtException', (e) => {
    process.stderr.write(`uncaught: ${e.stack ?? e.message}\n`)
    process.exit(1)
  })
  runRoomWorker(
    {
      input: process.stdin,
      output: process.stdout,
      log: (line) => void process.stderr.write(line + '\n'),
      exit: (code) => process.exit(code)
    },
    // On demand: most workers host only remoting clients and never need the gRPC SDK.
    { loadSdk: loadOfficialSdk }
  )
}

// Run when started directly (tsx), not when the CLI bundle imports it.
if (process.argv[1]?.endsWith('room-worker-main.ts')) roomWorkerMain()
