import { afterEach, beforeEach } from 'vitest'

/**
 * CI prints the head and tail of a long suite's output, so the scorecard a failing test wrote in
 * the middle is cut away. This keeps the last lines each test wrote to stdout and stderr and adds
 * them to its failure, which the summary at the end prints.
 */
const KEEP_LINES = 80
let lines: string[] = []

function tap(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString() : ''
    if (text) {
      lines.push(...text.split('\n').filter((l) => l.length > 0))
      if (lines.length > KEEP_LINES * 2) lines = lines.slice(-KEEP_LINES)
    }
    return write(chunk, ...rest)
  }) as typeof stream.write
}
tap(process.stdout)
tap(process.stderr)

beforeEach(() => {
  lines = []
})

afterEach(({ task }) => {
  const errors = task.result?.errors
  if (task.result?.state !== 'fail' || !errors?.length || lines.length === 0) return
  const last = lines.slice(-KEEP_LINES)
  const tail = `\n\n--- the last ${last.length} lines this test wrote ---\n${last.join('\n')}`
  for (const e of errors) {
    e.message = `${e.message ?? ''}${tail}`
    break
  }
})
