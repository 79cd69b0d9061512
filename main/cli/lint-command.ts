import {
  countFindings,
  formatFinding,
  hasLintErrors,
  lintTopology
} from '../../common/lint/lint'
import { loadTopologyForCli } from '../services/export/load-topology'

/** Where CLI commands print; process streams by default, buffers in tests. */
export interface TextSink {
  write(text: string): unknown
}

/**
 * `drstudio lint <file> [--json]`: one line per DR design finding
 * (`<severity> <ruleId> <nodes>: <message> (fix: <hint>)`). Exit 0 clean or warnings only,
 * 1 when an error-level rule fires, 2 when the file is unreadable or not a valid topology.
 */
export function runLintCommand(
  topologyPath: string,
  opts: { json?: boolean } = {},
  out: TextSink = process.stdout,
  err: TextSink = process.stderr
): number {
  const loaded = loadTopologyForCli(topologyPath)
  if (!loaded.ok) {
    if (opts.json) {
      out.write(
        JSON.stringify(
          {
            file: topologyPath,
            valid: false,
            problems: loaded.problems,
            error: loaded.lines.at(-1)
          },
          null,
          2
        ) + '\n'
      )
    } else {
      for (const line of loaded.lines) err.write(line + '\n')
    }
    return 2
  }
  const findings = lintTopology(loaded.topology)
  const counts = countFindings(findings)
  if (opts.json) {
    out.write(JSON.stringify({ file: topologyPath, valid: true, counts, findings }, null, 2) + '\n')
  } else {
    for (const f of findings) out.write(formatFinding(f) + '\n')
    err.write(
      `${topologyPath}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info\n`
    )
  }
  return hasLintErrors(findings) ? 1 : 0
}
