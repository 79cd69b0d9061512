import type { LoadedScenario } from '../../../common/scenario/run-plan'
import type { FaultReport, ScenarioReport } from '../../../common/scenario/schema'
import { scenarioSchema } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import type { RunFault } from './run/fault'
import { isNetworkFault, isObservation } from './run/fault'
import type { RunDeps } from './run/run'
import { Run, RunCancelledError } from './run/run'

/** The scenario a live run is judged as: the topology's own clients, no loss allowed. */
export function liveScenario(topology: Topology): LoadedScenario {
  return {
    scenario: scenarioSchema.parse({
      name: 'interactive session',
      description:
        'Operator-driven run: the topology’s own clients while nodes are acted on by hand.',
      topology: topology.name,
      // What the topology's producers send in a live run (Properties ▸ Topology ▸ Messages).
      workload: { messages: topology.settings.messages },
      client: { orderPolicy: topology.settings.orderPolicy },
      gates: { maxLost: 0 }
    }),
    topology,
    file: null,
    topologyFile: ''
  }
}

/**
 * The live driver: what the canvas calls while the sandbox runs. It opens a run of the topology's
 * own clients (their ids, topics and groups), starts it open-ended and finishes it on Stop; the
 * operator's actions go to `run.applyFault` like any fault. The phases, the fault path and the report are the
 * run's, exactly as a scenario gets them.
 */
export class LiveDriver {
  readonly run: Run
  private main: Promise<void> | undefined

  constructor(
    deps: RunDeps,
    topology: Topology,
    opts: { createTopic?: boolean; scenario?: LoadedScenario } = {}
  ) {
    this.run = Run.open(deps, {
      loaded: opts.scenario ?? liveScenario(topology),
      kind: 'session',
      liveMetrics: true,
      ...(opts.createTopic !== undefined ? { createTopic: opts.createTopic } : {})
    })
  }

  /** Starts setup and the open-ended workload in the background; a setup failure is reported. */
  begin(onFailure: (e: Error) => void): void {
    this.main ??= this.run.start({ durationMs: null }).catch((e: unknown) => {
      // The run keeps its note and stays open: Stop still reports what was recorded.
      if (!(e instanceof RunCancelledError)) onFailure(e as Error)
    })
  }

  /**
   * A fault another run applied to the same deployment (a scenario started from the app while the
   * sandbox runs): recorded here too, since it hits this run's clients as much.
   */
  observe(report: FaultReport, fault: RunFault): void {
    if (!report.ok || report.source === 'observed' || isObservation(fault)) return
    if (isNetworkFault(fault)) {
      void this.run.applyFault(fault, 'observed')
      return
    }
    // The other run's clients are not this run's: only the server nodes it hit.
    const servers = new Set(
      this.run.plan.targets
        .filter((t) => t.kind !== 'producer' && t.kind !== 'consumer')
        .map((t) => t.id)
    )
    const nodes = report.nodes.filter((n) => servers.has(n))
    if (nodes.length > 0)
      void this.run.applyFault({ action: fault.action, target: nodes }, 'observed')
  }

  /** Stop: ends the workload, restores, drains and reports. Idempotent. */
  async stop(): Promise<ScenarioReport> {
    return this.run.finish()
  }

  /** Engine shutdown: ends the run at once, without a report. */
  async abort(): Promise<void> {
    await this.run.cancel('the sandbox was shut down')
    await this.main
  }
}
