import { spawn, spawnSync } from 'node:child_process'
import { join, resolve } from 'node:path'

// The `drstudio` CLI as CI runs it: the bundle built from this checkout, as a child process, timed
// from its verdict to its exit (issue 21: a CLI that lingers after its verdict costs every CI job).

export const REPO = resolve(import.meta.dirname, '../../..')
const CLI = join(REPO, 'bin', 'drstudio.js')

/** The scorecard's verdict line: `scenario <name> on <topology> (run <id>): PASSED`. */
export const VERDICT = /\(run \d+\): (PASSED|FAILED)/

/** Builds out/cli/drstudio.mjs from this checkout's sources (esbuild, a second or two). */
export function buildCli(): void {
  const build = spawnSync(process.execPath, [join(REPO, 'scripts', 'build-cli.mjs')], {
    cwd: REPO,
    encoding: 'utf8'
  })
  if (build.status !== 0) throw new Error(`building the CLI failed:\n${build.stderr}`)
}

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
  /** From the verdict line on stdout to the process's exit; null when it printed none. */
  verdictToExitMs: number | null
  /**
   * Set when the process was still alive `lingerLimitMs` after its verdict and had to be killed:
   * its TCP sockets then (`ss -tnp`), to say what it held on to.
   */
  lingered: string[] | null
}

/**
 * Runs `drstudio <args>` to its end. `onStderr` sees each progress line (to act during the run, e.g.
 * kill a node out of band). A process still alive `lingerLimitMs` after its verdict is killed, and
 * the sockets it held are returned, so a lingering CLI fails the test quickly and says why.
 */
export async function runCli(
  args: string[],
  opts: {
    env?: Record<string, string>
    onStderr?: (line: string) => void
    lingerLimitMs?: number
    timeoutMs?: number
  } = {}
): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  let partial = ''
  let verdictAt: number | null = null
  let lingered: string[] | null = null
  let lingerTimer: NodeJS.Timeout | undefined
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString()
    if (verdictAt !== null || !VERDICT.test(stdout)) return
    verdictAt = performance.now()
    lingerTimer = setTimeout(() => {
      lingered = sockets(child.pid!)
      child.kill('SIGKILL')
    }, opts.lingerLimitMs ?? 10_000)
  })
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString()
    const lines = (partial + c.toString()).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) opts.onStderr?.(line)
  })
  const exited = new Promise<{ code: number | null; at: number }>((r) =>
    child.once('exit', (code) => r({ code, at: performance.now() }))
  )
  // After the exit and the end of its output, which can arrive after the exit event.
  const closed = new Promise((r) => child.once('close', r))
  const overall = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 170_000)
  try {
    const { code, at: exitAt } = await exited
    await closed
    return {
      code,
      stdout,
      stderr,
      verdictToExitMs: verdictAt === null ? null : Math.max(0, Math.round(exitAt - verdictAt)),
      lingered
    }
  } finally {
    clearTimeout(overall)
    clearTimeout(lingerTimer)
    child.kill('SIGKILL')
  }
}

/** A process's TCP sockets as `ss -tnp` lists them. */
function sockets(pid: number): string[] {
  const ss = spawnSync('ss', ['-tnp'], { encoding: 'utf8' })
  return (ss.stdout ?? '').split('\n').filter((l) => l.includes(`pid=${pid},`))
}
