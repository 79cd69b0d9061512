import { AlertCircle, CheckCircle2, ChevronDown, ChevronRight } from 'lucide-react'
import { useState } from 'react'
import { problemTarget } from '../model/problems'
import { selectDoc, useEditorStore } from '../stores/editor-store'
import { useUiStore } from '../stores/ui-store'

/** The Problems list: the same rules as `drstudio validate`; each entry selects its node. */
export function ProblemsPanel() {
  const problems = useEditorStore((s) => s.problems)
  const doc = useEditorStore(selectDoc)
  const [open, setOpen] = useState(true)
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
      {open &&
        (count === 0 ? (
          <p className="problems-none">
            <CheckCircle2 size={14} aria-hidden="true" /> No problems: the topology passes `drstudio
            validate`.
          </p>
        ) : (
          <ul className="problems-list">
            {problems.map((p, i) => {
              const target = problemTarget(doc, p)
              return (
                <li key={`${p.path}-${p.code}-${i}`}>
                  <button
                    type="button"
                    className="problem"
                    onClick={() => {
                      if (!target.id) return
                      useEditorStore.getState().select([target.id])
                      useUiStore.getState().requestFit([target.id])
                    }}
                  >
                    <AlertCircle size={14} aria-hidden="true" className="problem-icon" />
                    <span className="problem-msg">{p.message}</span>
                    <span className="problem-path">{p.path}</span>
                    <span className="problem-hint">fix: {p.hint}</span>
                  </button>
                </li>
              )
            })}
          </ul>
        ))}
    </section>
  )
}
