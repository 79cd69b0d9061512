import { memo, useId, useState } from 'react'
import { SWEEP_SETTINGS, sweepFlag } from '../model/sweep-view'
import { useScenarioStore } from '../stores/scenario-store'
import { CancelAndAct, Dialog } from './dialog'

/**
 * Scenarios ▸ Sweep…: one scenario's faults for every value of one client setting (or lane), side
 * by side in one run where they fit; the scorecard of each run then shows the whole sweep.
 */
export const SweepDialog = memo(function SweepDialog() {
  const sweepFor = useScenarioStore((s) => s.sweepFor)
  if (!sweepFor) return null
  return <SweepForm id={sweepFor} />
})

function SweepForm({ id }: { id: string }) {
  const scenario = useScenarioStore((s) => s.scenarios.find((x) => x.id === id))
  const busy = useScenarioStore((s) => s.busy)
  const [key, setKey] = useState(SWEEP_SETTINGS[0]!.key)
  const [values, setValues] = useState(SWEEP_SETTINGS[0]!.example)
  const [runs, setRuns] = useState('1')
  const [error, setError] = useState<string | null>(null)
  const fid = useId()
  const store = useScenarioStore.getState()
  const close = () => store.openSweep(null)
  const start = async () => {
    const flag = sweepFlag(key, values)
    if ('error' in flag) return setError(flag.error)
    const n = Number(runs)
    if (!Number.isInteger(n) || n < 1 || n > 20)
      return setError('runs: a whole number from 1 to 20')
    setError(await store.run(id, { vary: [flag.flag], runs: n }))
  }
  const name = scenario?.name ?? id
  return (
    <Dialog
      title={`Sweep ${name}`}
      onClose={close}
      describedBy={`${fid}-desc`}
      initialFocus="select"
      footer={
        <CancelAndAct
          label="Start sweep"
          onCancel={close}
          onAct={() => void start()}
          busy={busy === 'starting'}
          disabled={busy !== null}
        />
      }
    >
      <p id={`${fid}-desc`} className="dialog-text">
        Runs {name}&apos;s faults once for every value, side by side (up to four in one run), and
        shows RTO, failed sends, duplicates, cross-room share and send p99 per value with the best
        of each. The same as <code>drstudio sweep --vary</code>.
      </p>
      <div className="field">
        <label className="field-label" htmlFor={`${fid}-key`}>
          Vary
        </label>
        <select
          id={`${fid}-key`}
          className="input"
          value={key}
          onChange={(e) => {
            const next = SWEEP_SETTINGS.find((s) => s.key === e.target.value)!
            setKey(next.key)
            setValues(next.example)
            setError(null)
          }}
        >
          {SWEEP_SETTINGS.map((s) => (
            <option key={s.key} value={s.key}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <div className={`field${error ? ' field-invalid' : ''}`}>
        <label className="field-label" htmlFor={`${fid}-values`}>
          Values
        </label>
        <input
          id={`${fid}-values`}
          className="input mono"
          value={values}
          spellCheck={false}
          aria-invalid={!!error}
          aria-describedby={`${fid}-msg`}
          onChange={(e) => {
            setValues(e.target.value)
            setError(null)
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void start()
          }}
        />
        {error ? (
          <div id={`${fid}-msg`} className="field-error" role="alert">
            {error}
          </div>
        ) : (
          <div id={`${fid}-msg`} className="field-hint">
            Two or more, separated by commas, as a scenario file writes them.
          </div>
        )}
      </div>
      <div className="field">
        <label className="field-label" htmlFor={`${fid}-runs`}>
          Runs of each
        </label>
        <input
          id={`${fid}-runs`}
          className="input mono"
          type="number"
          min={1}
          max={20}
          value={runs}
          onChange={(e) => setRuns(e.target.value)}
        />
      </div>
    </Dialog>
  )
}
