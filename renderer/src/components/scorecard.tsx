import { CheckCircle2, XCircle } from 'lucide-react'
import { memo } from 'react'
import type { ScenarioReport } from '../../../common/scenario/schema'
import {
  checkBackText,
  controllerFacts,
  delayedFacts,
  failbackFacts,
  trafficFacts,
  headroomFacts,
  failoverLine,
  formatGateValue,
  formatRto,
  orderRows,
  transactionRows
} from '../model/plot-data'
import type { ScorecardFact } from '../model/plot-data'
import type { SweepSummary } from '../../../common/scenario/sweep-summary'
import { sweepTable } from '../../../common/scenario/sweep-summary'

/** A titled list of a report section's facts, the bad ones marked; nothing when there are none. */
function FactSection({ title, facts }: { title: string; facts: readonly ScorecardFact[] }) {
  if (facts.length === 0) return null
  return (
    <>
      <h3 className="sub-title">{title}</h3>
      <dl className="totals" aria-label={title}>
        {facts.map((f) => (
          <div key={f.label} className={`total${f.bad ? ' total-bad' : ''}`}>
            <dt>{f.label}</dt>
            <dd className="mono">{f.value}</dd>
          </div>
        ))}
      </dl>
    </>
  )
}

/** A what-if sweep this run belongs to: a row per combination, the best of each figure starred. */
function SweepSection({ sweep }: { sweep: SweepSummary | undefined }) {
  if (!sweep) return null
  const t = sweepTable(sweep)
  const runs = [...new Set(sweep.rows.flatMap((r) => r.runIds))]
  return (
    <>
      <h3 className="sub-title">Sweep</h3>
      <p className="muted">
        Every setting under the same faults ({runs.length === 1 ? 'run' : 'runs'} {runs.join(', ')}
        ); medians, * best.
      </p>
      <table className="grid-table" aria-label="Sweep">
        <thead>
          <tr>
            <th>Setting</th>
            {t.head.map((h) => (
              <th key={h} className="num">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {t.rows.map((r) => (
            <tr key={r.name}>
              <td className="mono">{r.label}</td>
              {r.cells.map((c, i) => (
                <td key={t.head[i]} className={`num mono${c.best ? ' cell-ok' : ''}`}>
                  {c.text}
                  {c.best ? ' *' : ''}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="notes" aria-label="Sweep verdict">
        {t.best.map((b) => (
          <li key={b}>{b}</li>
        ))}
        {t.tradeOff && <li>trade-off: {t.tradeOff}</li>}
      </ul>
    </>
  )
}

/** A scenario report at a glance: verdict, totals, gates, clients and failovers. */
export const Scorecard = memo(function Scorecard({ report }: { report: ScenarioReport }) {
  const t = report.totals
  return (
    <section className="scorecard" aria-label="Scorecard">
      <header className="scorecard-head">
        <span
          className={`verdict ${report.passed ? 'verdict-pass' : 'verdict-fail'}`}
          aria-label={`Verdict: ${report.passed ? 'passed' : 'failed'}`}
        >
          {report.passed ? (
            <CheckCircle2 size={14} aria-hidden="true" />
          ) : (
            <XCircle size={14} aria-hidden="true" />
          )}
          {report.passed ? 'Passed' : 'Failed'}
        </span>
        <span className="scorecard-title">
          {report.scenario} <span className="muted">on {report.topology}</span>
        </span>
        <span className="muted mono">run {report.runId}</span>
      </header>
      <dl className="totals">
        {(
          [
            ['sent', t.sent],
            ['acked', t.acked],
            ['failed', t.failed],
            ['consumed', t.consumed],
            ['lost', t.lost],
            ['duplicates', t.duplicates]
          ] as const
        ).map(([k, v]) => (
          <div
            key={k}
            className={`total${(k === 'lost' || k === 'failed') && v > 0 ? ' total-bad' : ''}`}
          >
            <dt>{k}</dt>
            <dd>
              <span className="sr-only">{`${v} ${k}`}</span>
              <span aria-hidden="true">{v}</span>
            </dd>
          </div>
        ))}
      </dl>
      {report.gates.length > 0 && (
        <table className="grid-table" aria-label="Gates">
          <thead>
            <tr>
              <th scope="col">Gate</th>
              <th scope="col" className="num">
                Actual
              </th>
              <th scope="col" className="num">
                Limit
              </th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {report.gates.map((g, i) => (
              <tr key={`${g.name}-${i}`}>
                <td>{g.name}</td>
                <td className="num mono">{formatGateValue(g.actual)}</td>
                <td className="num mono">{formatGateValue(g.limit)}</td>
                <td className={g.passed ? 'cell-ok' : 'cell-bad'}>{g.passed ? 'pass' : 'fail'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.clients.length > 0 && (
        <table className="grid-table" aria-label="Clients">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Room</th>
              <th scope="col">Role</th>
              <th scope="col" className="num">
                Sent
              </th>
              <th scope="col" className="num">
                Acked
              </th>
              <th scope="col" className="num">
                Failed
              </th>
              <th scope="col" className="num">
                Consumed
              </th>
              <th scope="col" className="num">
                Lost
              </th>
              <th scope="col" className="num">
                Duplicates
              </th>
              <th scope="col" className="num">
                RTO
              </th>
            </tr>
          </thead>
          <tbody>
            {report.clients.map((c) => (
              <tr key={c.id}>
                <td className="mono">{c.id}</td>
                <td>{c.room}</td>
                <td>{c.role}</td>
                <td className="num mono">{c.sent}</td>
                <td className="num mono">{c.acked}</td>
                <td className={`num mono${c.failed ? ' cell-warn' : ''}`}>{c.failed}</td>
                <td className="num mono">{c.consumed}</td>
                <td className={`num mono${c.lost ? ' cell-bad' : ''}`}>{c.lost}</td>
                <td className="num mono">{c.duplicates}</td>
                <td className="num mono">{formatRto(c.rtoMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <SweepSection sweep={report.sweep} />
      <FactSection
        title="Delayed messages"
        facts={report.delayed ? delayedFacts(report.delayed) : []}
      />
      {report.order && (
        <>
          <h3 className="sub-title">Order</h3>
          <table className="grid-table" aria-label="Order">
            <thead>
              <tr>
                <th>Lane</th>
                <th>Policy</th>
                <th className="num">Keys</th>
                <th>Violations</th>
                <th>Reroutes</th>
                <th>Longest stall</th>
              </tr>
            </thead>
            <tbody>
              {orderRows(report.order).map((r) => (
                <tr key={r.lane}>
                  <td className="mono">{r.lane}</td>
                  <td>{r.policy}</td>
                  <td className="num mono">{r.keys}</td>
                  <td className={`mono${r.bad.violations ? ' cell-bad' : ''}`}>{r.violations}</td>
                  <td className={`mono${r.bad.reroutes ? ' cell-warn' : ''}`}>{r.reroutes}</td>
                  <td className="mono">{r.stall}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {report.transactions && (
        <>
          <h3 className="sub-title">Transactions</h3>
          <p className="muted">
            {Math.round(report.transactions.commitShare * 100)} % of local transactions commit,{' '}
            {Math.round(report.transactions.checkShare * 100)} % answer only the check-back.{' '}
            {checkBackText(report.transactions)}
          </p>
          <table className="grid-table" aria-label="Transactions">
            <thead>
              <tr>
                <th>Lane</th>
                <th>Acked</th>
                <th className="num">Committed</th>
                <th>Rolled back</th>
                <th>Checked back</th>
                <th className="num">End lost</th>
                <th>Mismatches</th>
                <th className="num">Unresolved</th>
                <th className="num">Duplicates</th>
              </tr>
            </thead>
            <tbody>
              {transactionRows(report.transactions).map((r) => (
                <tr key={r.lane}>
                  <td className="mono">{r.lane}</td>
                  <td className="mono">{r.acked}</td>
                  <td className="num mono">{r.committed}</td>
                  <td className={`mono${r.bad.rolledBack ? ' cell-warn' : ''}`}>{r.rolledBack}</td>
                  <td className="mono">{r.checks}</td>
                  <td className="num mono">{r.endLost}</td>
                  <td className={`mono${r.bad.mismatches ? ' cell-bad' : ''}`}>{r.mismatches}</td>
                  <td className={`num mono${r.bad.unresolved ? ' cell-bad' : ''}`}>
                    {r.unresolved}
                  </td>
                  <td className={`num mono${r.bad.duplicates ? ' cell-warn' : ''}`}>
                    {r.duplicates}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <FactSection title="Fail-back" facts={failbackFacts(report.failback)} />
      <FactSection title="Cross-room traffic" facts={trafficFacts(report.traffic)} />
      <FactSection title="Headroom" facts={headroomFacts(report.headroom)} />
      <FactSection title="Controller mode" facts={controllerFacts(report.controller)} />
      <h3 className="sub-title">Failovers</h3>
      {report.failovers.length ? (
        <ul className="failovers" aria-label="Failovers">
          {report.failovers.map((f, i) => (
            <li key={`${f.clientId}-${f.atMs}-${i}`} className="mono">
              {failoverLine(f)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No failovers.</p>
      )}
      {report.notes.length > 0 && (
        <ul className="notes">
          {report.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </section>
  )
})
