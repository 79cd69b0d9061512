import {
  AlertCircle,
  AlertTriangle,
  CheckCircle2,
  ChevronDown,
  ChevronRight,
  Info
} from 'lucide-react'
import { memo, useEffect, useState } from 'react'
import { problemTarget } from '../model/problems'
import { selectDoc, useEditorStore } from '../stores/editor-store'
import type { LintFinding } from '../stores/lint-store'
import { useLintStore } from '../stores/lint-store'
import { useUiStore } from '../stores/ui-store'

const LINT_DELAY_MS = 400
const NONE: readonly LintFinding[] = []

function reveal(id: string | undefined): void {
  if (!id) return
  useEditorStore.getState().select([id])
  useUiStore.getState().requestFit([id])
}

const SEVERITY_ICON: Record<LintFinding['severity'], typeof AlertCircle> = {
  error: AlertCircle,
  warning: AlertTriangle,
  info: Info
}

const LintList = memo(function LintList({ findings }: { findings: readonly LintFinding[] }) {
  const [open, setOpen] = useState(false)
  const worst = findings.some((f) => f.severity === 'error')
    ? 'error'
    : findings.some((f) => f.severity === 'warning')
      ? 'warning'
      : 'info'
  return (
    <>
      <h3 className="problems-sub">
        <button
          type="button"
          className="problems-sub-toggle"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? (
            <ChevronDown size={12} aria-hidden="true" />
          ) : (
            <ChevronRight size={12} aria-hidden="true" />
          )}
          Production lint
          <span className={`count count-lint-${worst}`}>{findings.length}</span>
          {!open && <span className="problems-sub-hint">`drstudio lint`: click to show</span>}
        </button>
      </h3>
      {open && (
        <ul className="problems-list" aria-label="Lint findings">
          {findings.map((f, i) => {
            const Icon = SEVERITY_ICON[f.severity]
            return (
              <li key={`${f.ruleId}-${f.path}-${i}`}>
                <button
                  type="button"
                  className={`problem lint-${f.severity}`}
                  onClick={() => reveal(f.nodeIds[0])}
                >
                  <Icon size={14} aria-hidden="true" className="problem-icon" />
                  <span className="problem-msg">
                    <span className="sr-only">{f.severity}: </span>
                    {f.message}
                  </span>
                  <span className="problem-path">
                    {f.ruleId} · {f.path}
                  </span>
                  <span className="problem-hint">fix: {f.hint}</span>
                </button>
              </li>
            )
          })}
        </ul>
      )}
    </>
  )
})

/**
 * The Problems list: the same rules as `drstudio validate`, then `drstudio lint` findings with
 * their severity; each entry selects its node.
 */
export function ProblemsPanel() {
  const problems = useEditorStore((s) => s.problems)
  const doc = useEditorStore(selectDoc)
  // The engine lints valid documents only; stale findings of an earlier version are hidden.
  const lintFindings = useLintStore((s) => s.findings)
  const findings = problems.length ? NONE : lintFindings
  const [open, setOpen] = useState(true)
  useEffect(() => {
    // Lint asks the engine; one request per pause in editing is enough.
    const t = window.setTimeout(() => void useLintStore.getState().lint(doc), LINT_DELAY_MS)
    return () => window.clearTimeout(t)
  }, [doc])
  const count = problems.length
  return (
    <section
      className={`problems${open ? '' : ' collapsed'}`}
      aria-label="Problems"
      id="problems-panel"
    >
      <h2 className="problems-header">
        <button
          type="button"
          className="problems-toggle"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {open ? (
            <ChevronDown size={14} aria-hidden="true" />
          ) : (
            <ChevronRight size={14} aria-hidden="true" />
          )}
          Problems
          <span className={`count${count ? ' count-bad' : ''}`}>{count}</span>
        </button>
      </h2>
      {open && (
        <div className="problems-scroll">
          {count === 0 ? (
            <p className="problems-none">
              <CheckCircle2 size={14} aria-hidden="true" /> No problems: the topology passes
              `drstudio validate`.
            </p>
          ) : (
            <ul className="problems-list">
              {problems.map((p, i) => {
                const target = problemTarget(doc, p)
                return (
                  <li key={`${p.path}-${p.code}-${i}`}>
                    <button type="button" className="problem" onClick={() => reveal(target.id)}>
                      <AlertCircle size={14} aria-hidden="true" className="problem-icon" />
                      <span className="problem-msg">{p.message}</span>
                      <span className="problem-path">{p.path}</span>
                      <span className="problem-hint">fix: {p.hint}</span>
                    </button>
                  </li>
                )
              })}
            </ul>
          )}
          {findings.length > 0 && <LintList findings={findings} />}
        </div>
      )}
    </section>
  )
}
