// Every benchmark writes its table to bench/results/<name>.md (committed: the README quotes them)
// with the date, the command, the machine and the load average, so a figure can be read in context.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join, resolve } from 'node:path'

const RESULTS = resolve(import.meta.dirname, 'results')

/** 1-, 5- and 15-minute load averages, rounded. */
export function loadNow(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100)
}

/** One line saying when, how and where a benchmark ran. */
export function provenance(command: string, load: { before: number[]; after: number[] }): string {
  const c = cpus()
  return (
    `${new Date().toISOString()} · \`${command}\` · ${c.length} × ${c[0]?.model ?? 'CPU'}, ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version} · load average (1/5/15 min) ` +
    `${load.before.join(' / ')} before, ${load.after.join(' / ')} after.`
  )
}

/** Writes `# title`, the provenance line and the body to bench/results/<name>.md. */
export function writeResultMarkdown(
  name: string,
  title: string,
  command: string,
  load: { before: number[]; after: number[] },
  body: string
): string {
  const text = `# ${title}\n\n${provenance(command, load)}\n\n${body.trim()}\n`
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, `${name}.md`), text)
  return text
}
