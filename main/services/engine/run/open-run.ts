import type { ClientChoice, LedgerEvent } from '../../../../common/scenario/events'
import type { Clock, ManagementPort } from '../../clients/room-aware/ports'
import { httpManagement, systemClock } from '../../clients/room-aware/ports'
import { LedgerReader } from '../../ledger/ledger-reader'
import type { LedgerWriteError } from '../../ledger/ledger-writer'
import { LedgerWriter } from '../../ledger/ledger-writer'
import type { Recorder } from '../../ledger/recorder'
import { RemotingRpc } from '../../remoting/remoting-rpc'
import type { ClusterPort } from '../../scenario/cluster'
import type { LoadedScenario } from '../../scenario/load-scenario'
import { planClients } from '../../scenario/plan'
import type { WorkerFactory } from '../../workers/client-fleet'
import { ClientFleet } from '../../workers/client-fleet'
import type { WireRow } from '../../workers/protocol'
import { startControllerWatch } from './controller-run'
import type { AdminRemoting, RunContext, RunNames, RunProgress, TopicPolicy } from './run-context'
import { recordFault } from './timeline'

/** What a scenario run or an interactive session is built from. */
export interface OpenRunOptions {
  recorder: Recorder
  runId: number
  loaded: LoadedScenario
  cluster: ClusterPort
  workers: WorkerFactory
  names: RunNames
  topicPolicy: TopicPolicy
  management?: ManagementPort
  admin?: () => AdminRemoting
  clock?: Clock
  readyTimeoutMs?: number
  /** Where ledger rows go if SQLite refuses them. */
  rescueFile?: string
  /** Aborting it cancels the run. */
  signal?: AbortSignal
  on: {
    progress(p: RunProgress): void
    ledgerEvent(e: LedgerEvent): void
    choice(c: ClientChoice): void
  }
}

export interface OpenRun {
  ctx: RunContext
  /** Set when the ledger could not be written: the run must end as an error with this message. */
  ledgerFailure(): LedgerWriteError | undefined
  /** Stops every worker, flushes the ledger; idempotent. */
  close(): Promise<void>
  /** Aborts the run's waits (cancel, or a failure that must end it). */
  abort(reason: Error): void
  /** The workload start, once known (faults are timed from it). */
  t0: number
}

/**
 * Wires one run: its ledger (the engine is the only writer: every worker's rows land here), its
 * fleet of client workers, a worker dying on its own recorded as a fault of its clients, and a
 * ledger write failure aborting the run loudly instead of booking anything as a failed send.
 */
export function openRun(o: OpenRunOptions): OpenRun {
  const clock = o.clock ?? systemClock
  const ctrl = new AbortController()
  if (o.signal) {
    if (o.signal.aborted) ctrl.abort(o.signal.reason)
    else o.signal.addEventListener('abort', () => ctrl.abort(o.signal!.reason), { once: true })
  }
  const ledger = new LedgerWriter(o.recorder.db, o.runId, {
    ...(o.rescueFile ? { rescueFile: o.rescueFile } : {}),
    now: () => clock.now()
  })
  ledger.on('event', o.on.ledgerEvent)
  ledger.on('error', (e) => ctrl.abort(e))
  const fleet = new ClientFleet(o.workers, () => clock.now())
  fleet.on('rows', (rows) => writeRows(ledger, rows))
  fleet.on('choice', o.on.choice)
  const tStart = clock.now()
  const plans = planClients(o.loaded.scenario, o.loaded.topology)
  // Controller-mode topologies: leader, masters and SyncStateSets go to the ledger all run long.
  const controllers = startControllerWatch({
    topology: o.loaded.topology,
    cluster: o.cluster,
    plans,
    names: o.names,
    ledger,
    now: () => clock.now()
  })
  const run: OpenRun = {
    t0: 0,
    ctx: {
      runId: o.runId,
      loaded: o.loaded,
      plans,
      fleet,
      ledger,
      reader: new LedgerReader(o.recorder.db),
      cluster: o.cluster,
      management: o.management ?? httpManagement,
      admin: (
        o.admin ?? (() => new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 3000 }))
      )(),
      clock,
      signal: ctrl.signal,
      names: o.names,
      topicPolicy: o.topicPolicy,
      readyTimeoutMs: o.readyTimeoutMs ?? 90_000,
      endpoints: { managementNodes: [], nameServers: [] },
      notes: [],
      applied: [],
      ...(controllers ? { controllers: controllers.watcher } : {}),
      progress: (phase, message) => {
        ledger.event('phase', null, null, {
          phase: phase === 'done' ? 'report' : phase,
          detail: message
        })
        o.on.progress({ runId: o.runId, phase, message, atMs: clock.now() - tStart })
      }
    },
    ledgerFailure: () => ledger.failure,
    abort: (reason) => ctrl.abort(reason),
    close: async () => {
      await fleet.close()
      await controllers?.close()
      run.ctx.admin.close()
      ledger.close()
    }
  }
  fleet.on('worker-exit', (e) => {
    ledger.event('worker-exit', null, e.room, e)
    if (e.clients.length > 0) {
      recordFault(
        run.ctx,
        {
          action: 'kill',
          target: [e.worker],
          nodes: e.clients,
          kinds: e.clients.map(() => 'client')
        },
        run.t0
      )
    }
  })
  return run
}

/** Worker rows into the one ledger writer, tagged with nothing more: they are already complete. */
export function writeRows(ledger: LedgerWriter, rows: readonly WireRow[]): void {
  for (const r of rows) {
    switch (r.k) {
      case 'e': {
        const { k: _k, kind, clientId, room, data, atMs } = r
        ledger.event(kind as never, clientId, room, data as never, atMs)
        break
      }
      case 's': {
        const { k: _k, ...send } = r
        ledger.send(send)
        break
      }
      case 'd': {
        const { k: _k, ...delivery } = r
        ledger.delivery(delivery)
        break
      }
    }
  }
}
