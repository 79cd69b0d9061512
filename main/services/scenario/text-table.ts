/**
 * Rows of cells as lines of a plain-text table, two spaces between columns, trailing space trimmed.
 * `right` says which columns are right-aligned (numbers); the rest are left-aligned.
 */
export function textTable(
  rows: readonly (readonly string[])[],
  right: (column: number) => boolean = () => false
): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows.map((r) =>
    r
      .map((c, i) => (right(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd()
  )
}
