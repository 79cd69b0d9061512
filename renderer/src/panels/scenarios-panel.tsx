import { Loader2, Play, SlidersHorizontal, Square } from 'lucide-react'
import { memo, useEffect } from 'react'
import { Scorecard } from '../components/scorecard'
import { useScenarioStore } from '../stores/scenario-store'
import { DockSection } from './dock-section'

/** Where Run runs: this machine's sandbox, or a context of the user's kubeconfig. */
const RunTarget = memo(function RunTarget() {
  const contexts = useScenarioStore((s) => s.contexts)
  const target = useScenarioStore((s) => s.target)
  const running = useScenarioStore((s) => s.running)
  const busy = useScenarioStore((s) => s.busy)
  return (
    <div className="run-target">
      <label htmlFor="run-target">Run on</label>
      <select
        id="run-target"
        value={target ?? ''}
        disabled={running || busy !== null}
        onFocus={() => void useScenarioStore.getState().loadContexts()}
        onChange={(e) => useScenarioStore.getState().setTarget(e.target.value || null)}
      >
        <option value="">This machine</option>
        {(contexts?.contexts ?? []).map((c) => (
          <option key={c.name} value={c.name}>
            {`Kubernetes: ${c.name}${c.current ? ' (current)' : ''}${c.server ? ` · ${c.server}` : ' · no server'}`}
          </option>
        ))}
      </select>
      {contexts?.problem && (
        <span className="muted run-target-note" role="note">
          {contexts.problem}
        </span>
      )}
      {target && (
        <span className="muted run-target-note" role="note">
          Deploys the scenario's topology in its namespace, runs it, then deletes the run
          (docs/kubernetes.md).
        </span>
      )}
    </div>
  )
})

const ScenarioList = memo(function ScenarioList() {
  const scenarios = useScenarioStore((s) => s.scenarios)
  const loaded = useScenarioStore((s) => s.loaded)
  const running = useScenarioStore((s) => s.running)
  const busy = useScenarioStore((s) => s.busy)
  const current = useScenarioStore((s) => s.scenario)
  const target = useScenarioStore((s) => s.target)
  if (!loaded) return <p className="muted pad">Loading scenarios…</p>
  if (!scenarios.length) return <p className="muted pad">No built-in scenarios.</p>
  return (
    <ul className="scenario-list">
      {scenarios.map((sc) => (
        <li key={sc.id} className="scenario">
          <div className="scenario-text">
            <span className="scenario-name">{sc.name}</span>
            <span className="scenario-topology mono">{sc.topology}</span>
            <span className="scenario-desc">{sc.description}</span>
          </div>
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Run ${sc.name}`}
            title={`Run ${sc.name} ${target ? `on Kubernetes context ${target}` : 'on the sandbox'}`}
            disabled={running || busy !== null}
            onClick={() => void useScenarioStore.getState().run(sc.id)}
          >
            {busy === 'starting' && current === sc.name ? (
              <Loader2 size={12} className="spin" aria-hidden="true" />
            ) : (
              <Play size={12} aria-hidden="true" />
            )}
            Run
          </button>
          <button
            type="button"
            className="btn btn-small"
            aria-label={`Sweep ${sc.name}`}
            title={
              target
                ? 'A sweep runs its settings side by side on this machine; choose This machine to sweep'
                : `Run ${sc.name} once for every value of a client setting, side by side`
            }
            disabled={running || busy !== null || target !== null}
            onClick={() => useScenarioStore.getState().openSweep(sc.id)}
          >
            <SlidersHorizontal size={12} aria-hidden="true" />
            Sweep…
          </button>
        </li>
      ))}
    </ul>
  )
})

const ScenarioProgress = memo(function ScenarioProgress() {
  const progress = useScenarioStore((s) => s.progress)
  const running = useScenarioStore((s) => s.running)
  const scenario = useScenarioStore((s) => s.scenario)
  const last = progress[progress.length - 1]
  if (!running && !last) return null
  return (
    <div className="scenario-progress" role="status" aria-label="Scenario progress">
      {running && <Loader2 size={12} className="spin" aria-hidden="true" />}
      <span className="scenario-phase">{last?.phase ?? 'starting'}</span>
      <span className="scenario-msg">
        {scenario ? `${scenario}: ` : ''}
        {last?.message ?? 'waiting for the engine…'}
      </span>
    </div>
  )
})

const LastScorecard = memo(function LastScorecard() {
  const report = useScenarioStore((s) => s.report)
  const idle = useScenarioStore((s) => !s.running && !s.progress.length)
  if (report) return <Scorecard report={report} />
  return idle ? (
    <p className="muted">Run a scenario: its progress and scorecard appear here.</p>
  ) : null
})

/** Built-in scenarios with Run buttons, the live progress line and the last run's scorecard. */
export const ScenariosPanel = memo(function ScenariosPanel({
  open,
  onToggle
}: {
  open: boolean
  onToggle: () => void
}) {
  const running = useScenarioStore((s) => s.running)
  const busy = useScenarioStore((s) => s.busy)
  const loaded = useScenarioStore((s) => s.loaded)
  const report = useScenarioStore((s) => s.report)
  const contexts = useScenarioStore((s) => s.contexts)
  useEffect(() => {
    if (open && !loaded) void useScenarioStore.getState().load()
    if (open && !contexts) void useScenarioStore.getState().loadContexts()
  }, [open, loaded, contexts])
  return (
    <DockSection
      title="Scenarios"
      open={open}
      onToggle={onToggle}
      badge={
        running ? (
          <span className="count count-live">running</span>
        ) : report ? (
          <span className={`count ${report.passed ? 'count-ok' : 'count-bad'}`}>
            {report.passed ? 'passed' : 'failed'}
          </span>
        ) : null
      }
      actions={
        running ? (
          <button
            type="button"
            className="btn btn-small btn-danger"
            disabled={busy === 'cancelling'}
            onClick={() => void useScenarioStore.getState().cancel()}
          >
            <Square size={11} aria-hidden="true" /> Cancel
          </button>
        ) : null
      }
    >
      <div className="scenarios-body">
        <div>
          <RunTarget />
          <ScenarioList />
        </div>
        <div className="scenario-result">
          <ScenarioProgress />
          <LastScorecard />
        </div>
      </div>
    </DockSection>
  )
})
