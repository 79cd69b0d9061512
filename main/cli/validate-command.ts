import { readTopologyFile } from '../services/documents/documents'
import { formatProblem } from '../../common/topology'

/** `drstudio validate <file>`: 0 when valid, 1 with one line per problem. */
export function runValidateCommand(
  file: string,
  opts: { json?: boolean },
  out = process.stdout
): number {
  let opened
  try {
    opened = readTopologyFile(file)
  } catch (err) {
    const message = (err as Error).message
    out.write(
      opts.json ? JSON.stringify({ file, valid: false, error: message }) + '\n' : `${message}\n`
    )
    return 1
  }
  const valid = opened.problems.length === 0
  if (opts.json) {
    out.write(JSON.stringify({ file, valid, problems: opened.problems }, null, 2) + '\n')
  } else if (valid) {
    out.write(`${file}: valid topology "${opened.name}"\n`)
  } else {
    for (const p of opened.problems) out.write(`${file}: ${formatProblem(p)}\n`)
  }
  return valid ? 0 : 1
}
