import type { Comparison } from '../../../common/scenario/compare'
import { textTable } from './text-table'

/** The comparison as a text table; figures that differ between runs are marked `*`. */
export function formatComparison(c: Comparison): string {
  const head = ['', ...c.runs.map((r) => `run ${r.runId}`)]
  const body = c.rows.map((row) => [`${row.differs ? '*' : ' '} ${row.figure}`, ...row.values])
  return [...textTable([head, ...body]), '', '* differs between the runs', ''].join('\n')
}
