import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { WebSocket } from 'ws'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defaultDelayRouterPath } from '../../main/services/network/delay-router'
import { nodeExec } from '../../main/services/network/exec'
import { NetworkLab } from '../../main/services/network/lab'
import { OwnerStore } from '../../main/services/network/owners'
import { namespacePrefix } from '../../main/services/network/plan'
import { detectNetworkSupport } from '../../main/services/network/support'
import { readPidFile } from '../../main/services/sandbox/orphans'
import { linuxProcFs } from '../../main/services/sandbox/procfs'
import { buildCli, runCli } from './helpers/cli'

// Item 7 of "Every number true and every failure loud": a SIGKILLed engine (CLI, scenario runner
// or browser shell) takes every JVM and management node with it. Each case boots two-rooms
// (4 JVMs + 2 management nodes), kills the engine the moment they are up, and polls /proc.
// Issue 21, the other end of an engine's life: one left to finish exits right after its verdict.
// Issue 12: where rooms are namespaces, they outlive the engine; the next start's sweep removes them.

const REPO = resolve(import.meta.dirname, '../..')
const CLI = join(REPO, 'bin', 'drstudio.js')
const BOOT_MS = 150_000
const DEATH_MS = 5_000
const DELAY_ROUTER = defaultDelayRouterPath(REPO)
const namespaces =
  process.platform === 'linux' &&
  (await detectNetworkSupport(nodeExec, { delayRouter: DELAY_ROUTER })).ok

/** A process as first seen: its start time tells it apart from a later one reusing the pid. */
interface Seen {
  pid: number
  start: string
  cmd: string
}

function statOf(pid: number): { state: string; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // comm may hold spaces and parentheses; the fields after the last ')' are fixed.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0]!, start: fields[19]! }
  } catch {
    return undefined
  }
}

/** Alive: same process (pid and start time), not a zombie waiting to be reaped. */
function alive(p: Seen): boolean {
  const s = statOf(p.pid)
  return s !== undefined && s.start === p.start && s.state !== 'Z' && s.state !== 'X'
}

function descendants(pid: number): number[] {
  const out: number[] = []
  const stack = [...linuxProcFs.children(pid)]
  while (stack.length > 0) {
    const p = stack.pop()!
    out.push(p)
    stack.push(...linuxProcFs.children(p))
  }
  return out
}

interface Engine {
  child: ChildProcessWithoutNullStreams
  output: () => string
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>
  exited: Promise<void>
}

let running: Engine | undefined
let children: Seen[] = []
let dataDir = ''

function startEngine(args: string[]): Engine {
  dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-death-'))
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env: { ...process.env, DRSTUDIO_DATA_DIR: dataDir },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let out = ''
  const waiters: (() => void)[] = []
  const onData = (c: Buffer): void => {
    out += c.toString()
    for (const w of waiters) w()
  }
  child.stdout.on('data', onData)
  child.stderr.on('data', onData)
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const engine: Engine = {
    child,
    output: () => out,
    exited,
    waitFor: (pattern, ms = BOOT_MS) =>
      new Promise((resolvePromise, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${out}`)),
          ms
        )
        const check = (): void => {
          const m = pattern.exec(out)
          if (m) {
            clearTimeout(timer)
            resolvePromise(m)
          }
        }
        waiters.push(check)
        void exited.then(() => {
          clearTimeout(timer)
          reject(new Error(`the engine exited before ${pattern}; output:\n${out}`))
        })
        check()
      })
  }
  running = engine
  return engine
}

/** Every process the engine started, from /proc and from the sandbox's own pid file. */
function recordChildren(engine: Engine): Seen[] {
  const recorded = readPidFile(join(dataDir, 'sandbox', 'pids.json')).map((e) => e.pid)
  const pids = [...new Set([...descendants(engine.child.pid!), ...recorded])]
  children = pids.flatMap((pid) => {
    const s = statOf(pid)
    const cmd = linuxProcFs.cmdline(pid)
    return s && cmd ? [{ pid, start: s.start, cmd }] : []
  })
  return children
}

/** Asserts the engine started the 4 JVMs and 2 management nodes of two-rooms (so the check bites). */
function expectTwoRoomsChildren(seen: Seen[]): void {
  const jvms = seen.filter((p) => /\bjava\b/.test(p.cmd) && p.cmd.includes(dataDir))
  const mgmt = seen.filter((p) => /management\.json/.test(p.cmd))
  expect(jvms.length, seen.map((p) => p.cmd).join('\n')).toBe(4)
  expect(mgmt.length, seen.map((p) => p.cmd).join('\n')).toBe(2)
}

/** The network namespaces of the labs `pid` owns (from the owner records, read while it lives). */
function labsOf(pid: number): string[] {
  const store = new OwnerStore()
  const prefixes = store
    .instances()
    .filter((i) => store.read(i)?.pid === pid)
    .map(namespacePrefix)
  return liveLabs().filter((n) => prefixes.some((p) => n.startsWith(p)))
}

function liveLabs(): string[] {
  return execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => n.startsWith('drs-'))
}

/** SIGKILLs the engine and returns whichever of its children still run after the deadline. */
async function killEngineAndPoll(engine: Engine): Promise<string[]> {
  engine.child.kill('SIGKILL')
  await engine.exited
  const deadline = Date.now() + DEATH_MS
  for (;;) {
    const left = children.filter(alive)
    if (left.length === 0 || Date.now() >= deadline) return left.map((p) => `${p.pid} ${p.cmd}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// The engine under test is the bundled CLI; build it from this checkout's sources.
beforeAll(() => buildCli())

describe.runIf(process.platform === 'linux')('children die with a SIGKILLed engine', () => {
  afterEach(async () => {
    // Never leave JVMs behind, whatever the test found.
    running?.child.kill('SIGKILL')
    await running?.exited
    for (const p of children) if (alive(p)) process.kill(p.pid, 'SIGKILL')
    running = undefined
    children = []
    if (dataDir && !process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  })

  it('drstudio sandbox up', async () => {
    const engine = startEngine(['sandbox', 'up', 'resources/topologies/two-rooms.json'])
    await engine.waitFor(/all nodes ready in/)
    expectTwoRoomsChildren(recordChildren(engine))
    expect(engine.output()).toContain(
      namespaces ? 'rooms are separate networks' : 'rooms share loopback'
    )
    const labs = namespaces ? labsOf(engine.child.pid!) : []
    if (namespaces) expect(labs.length).toBeGreaterThan(0)
    expect(await killEngineAndPoll(engine)).toEqual([])
    if (!namespaces) return
    // Nothing in the kernel ties a namespace to a process: they outlive the SIGKILL, and the next
    // start's sweep removes every one whose owner is gone.
    expect(liveLabs().filter((n) => labs.includes(n)).length).toBeGreaterThan(0)
    await new NetworkLab({ delayRouter: DELAY_ROUTER }).sweep()
    expect(liveLabs().filter((n) => labs.includes(n))).toEqual([])
  })

  it('drstudio scenario run', async () => {
    const engine = startEngine(['scenario', 'run', 'resources/scenarios/healthy.yaml'])
    // The runner's first phase starts once sandbox.start() has every node up.
    await engine.waitFor(/\[setup\]/)
    expectTwoRoomsChildren(recordChildren(engine))
    expect(await killEngineAndPoll(engine)).toEqual([])
  })

  it('drstudio serve (browser shell), sandbox started over its WebSocket', async () => {
    const engine = startEngine(['serve', '--port', '0'])
    const [, base, token] = await engine.waitFor(
      /(http:\/\/127\.0\.0\.1:\d+)\/\?token=(\S+)/,
      30_000
    )
    const document = JSON.parse(
      readFileSync(join(REPO, 'resources/topologies/two-rooms.json'), 'utf8')
    ) as unknown
    const ws = new WebSocket(`${base!.replace('http', 'ws')}/ws?token=${token!}`)
    try {
      await new Promise<void>((r, reject) => {
        ws.once('open', () => r())
        ws.once('error', reject)
      })
      const answer = await new Promise<{ ok: boolean; result?: { running: boolean } }>(
        (r, reject) => {
          const timer = setTimeout(() => reject(new Error('sandbox:start never answered')), BOOT_MS)
          ws.on('message', (data) => {
            const msg = JSON.parse(data.toString()) as { t: string; id?: number }
            if (msg.t === 'res' && msg.id === 1) {
              clearTimeout(timer)
              r(msg as never)
            }
          })
          ws.send(
            JSON.stringify({ t: 'req', id: 1, channel: 'sandbox:start', payload: { document } })
          )
        }
      )
      expect(answer, JSON.stringify(answer)).toMatchObject({ ok: true, result: { running: true } })
    } finally {
      ws.terminate()
    }
    expectTwoRoomsChildren(recordChildren(engine))
    expect(await killEngineAndPoll(engine)).toEqual([])
  })
})

describe.runIf(process.platform === 'linux')('an engine left to finish', () => {
  it('drstudio scenario run exits within 2 s of its verdict (issue 21)', async () => {
    const data = mkdtempSync(join(tmpdir(), 'drstudio-it-exit-'))
    try {
      const scenario = join(data, 'short-healthy.yaml')
      writeFileSync(
        scenario,
        'name: short-healthy\ntopology: two-rooms\nworkload: { duration: 3s, rate: 20, duplicateGrace: 1s }\n'
      )
      const cli = await runCli(['scenario', 'run', scenario], {
        env: { DRSTUDIO_DATA_DIR: data },
        timeoutMs: BOOT_MS
      })
      process.stderr.write(`${cli.stdout}\nverdict → exit: ${cli.verdictToExitMs} ms\n`)
      expect(cli.lingered, `sockets the CLI still held:\n${cli.lingered?.join('\n')}`).toBeNull()
      expect(cli.stdout, cli.stderr).toMatch(/\(run \d+\): PASSED/)
      expect(cli.code).toBe(0)
      expect(cli.stderr).toContain('sandbox stopped')
      expect(cli.verdictToExitMs).toBeLessThan(2000)
    } finally {
      if (!process.env.KEEP_RUN_DIR) rmSync(data, { recursive: true, force: true })
    }
  })
})
