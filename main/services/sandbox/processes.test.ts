import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { watchLifeline } from '../lifeline'
import type { DeathTie } from './processes'
import { createProcessSpawner, deathTieWarning, detectDeathTie, tiedCommand } from './processes'
import { linuxProcFs } from './procfs'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const linux = process.platform === 'linux'

/** Alive means in the process table and not a zombie waiting for init to reap it. */
function alive(pid: number): boolean {
  const state = linuxProcFs.state(pid)
  return state !== undefined && state !== 'Z' && state !== 'X'
}

/** Polls until every pid is gone or the deadline passes; returns the survivors. */
async function survivorsAfter(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms
  for (;;) {
    const left = pids.filter(alive)
    if (left.length === 0 || Date.now() >= deadline) return left
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('detectDeathTie', () => {
  it('uses setpriv when it exists and supports --pdeathsig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drstudio-setpriv-'))
    const fake = join(dir, 'setpriv')
    writeFileSync(fake, '#!/bin/sh\nexit 0\n')
    chmodSync(fake, 0o755)
    expect(detectDeathTie('linux', dir, () => true)).toEqual({ kind: 'setpriv', program: fake })
    expect(detectDeathTie('linux', dir, () => false)).toMatchObject({
      kind: 'none',
      reason: expect.stringContaining('does not support --pdeathsig')
    })
    rmSync(dir, { recursive: true })
  })

  it('falls back, saying why, when setpriv is missing or the OS has no parent-death signal', () => {
    const empty = mkdtempSync(join(tmpdir(), 'drstudio-nopath-'))
    expect(detectDeathTie('linux', empty, () => true)).toEqual({
      kind: 'none',
      reason: 'setpriv (util-linux) is not installed'
    })
    expect(detectDeathTie('darwin', '/usr/bin', () => true)).toEqual({
      kind: 'none',
      reason: 'darwin has no parent-death signal'
    })
    rmSync(empty, { recursive: true })
  })

  it.runIf(linux)('finds the real setpriv on this machine', () => {
    expect(detectDeathTie().kind).toBe('setpriv')
  })
})

describe('tiedCommand', () => {
  it('wraps the command in setpriv --pdeathsig KILL, keeping the arguments intact', () => {
    const tie: DeathTie = { kind: 'setpriv', program: '/usr/bin/setpriv' }
    expect(tiedCommand(tie, '/jdk/bin/java', ['-cp', 'a b', 'Main'])).toEqual({
      command: '/usr/bin/setpriv',
      args: ['--pdeathsig', 'KILL', '--', '/jdk/bin/java', '-cp', 'a b', 'Main']
    })
  })

  it('leaves the command alone without a tie', () => {
    expect(tiedCommand({ kind: 'none', reason: 'x' }, 'java', ['-version'])).toEqual({
      command: 'java',
      args: ['-version']
    })
  })
})

describe('createProcessSpawner', () => {
  it('warns once, naming the cause and the fix, when children cannot be tied', async () => {
    const warnings: string[] = []
    const dir = mkdtempSync(join(tmpdir(), 'drstudio-spawn-'))
    const spawner = createProcessSpawner({
      deathTie: () => ({ kind: 'none', reason: 'setpriv (util-linux) is not installed' }),
      warn: (m) => warnings.push(m)
    })
    for (const i of [1, 2]) {
      const p = spawner.spawn({
        command: process.execPath,
        args: ['-e', 'process.stdout.write(String(process.env.DRSTUDIO_LIFELINE_FD))'],
        env: {},
        cwd: dir,
        logFile: join(dir, `n${i}.log`),
        lifeline: i === 2
      })
      expect(await p.exited).toEqual({ code: 0, signal: null })
    }
    expect(warnings).toEqual([
      deathTieWarning({ kind: 'none', reason: 'setpriv (util-linux) is not installed' })
    ])
    expect(warnings[0]).toContain('install util-linux (setpriv)')
    // Only a lifeline child is told where its lifeline is.
    expect(readFileSync(join(dir, 'n1.log'), 'utf8')).toBe('undefined')
    expect(readFileSync(join(dir, 'n2.log'), 'utf8')).toBe('3')
    rmSync(dir, { recursive: true })
  })
})

describe('children die with their parent', () => {
  let engine: ChildProcess | undefined
  let pids: number[] = []
  let dir = ''

  afterEach(() => {
    engine?.kill('SIGKILL')
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL')
    if (dir) rmSync(dir, { recursive: true, force: true })
    engine = undefined
    pids = []
  })

  /** Starts the fake engine and resolves with its children's pids once both run. */
  async function startEngine(tie: 'auto' | 'none'): Promise<{ sleeper: number; node: number }> {
    dir = mkdtempSync(join(tmpdir(), 'drstudio-tie-'))
    engine = spawn(
      process.execPath,
      ['--import', 'tsx', join(FIXTURES, 'fake-engine.ts'), tie, dir],
      {
        stdio: ['ignore', 'pipe', 'inherit']
      }
    )
    const line = await new Promise<string>((resolve, reject) => {
      let out = ''
      engine!.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        if (out.includes('\n')) resolve(out.split('\n')[0]!)
      })
      engine!.once('exit', (code) => reject(new Error(`fake engine exited with ${code}`)))
    })
    const children = JSON.parse(line) as { sleeper: number; node: number }
    pids = [children.sleeper, children.node]
    // The Node child is up once it reports on its lifeline (never a sleep).
    const deadline = Date.now() + 20_000
    while (!readText(join(dir, 'node.log')).includes('lifeline watched')) {
      if (Date.now() > deadline)
        throw new Error(`node child never started: ${readText(join(dir, 'node.log'))}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(pids.every(alive)).toBe(true)
    return children
  }

  it.runIf(linux)('SIGKILL of the parent kills a non-Node child and a Node child', async () => {
    await startEngine('auto')
    engine!.kill('SIGKILL')
    expect(await survivorsAfter(pids, 5000)).toEqual([])
  })

  it.runIf(linux)('without setpriv, a Node child still exits on its lifeline', async () => {
    const { sleeper, node } = await startEngine('none')
    engine!.kill('SIGKILL')
    expect(await survivorsAfter([node], 5000)).toEqual([])
    expect(readText(join(dir, 'node.log'))).toContain('parent gone')
    // The control: nothing ties the non-Node child, so it outlives the parent (the sweep's job).
    expect(alive(sleeper)).toBe(true)
  })
})

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

describe('watchLifeline', () => {
  function fakeSocket() {
    const handlers = new Map<string, () => void>()
    return {
      handlers,
      on(event: string, fn: () => void) {
        handlers.set(event, fn)
        return this
      },
      unref() {
        return this
      },
      resume() {
        return this
      }
    }
  }

  it('exits once when the pipe ends, and hides the variable from our own children', () => {
    const env: NodeJS.ProcessEnv = { DRSTUDIO_LIFELINE_FD: '3' }
    const sock = fakeSocket()
    let calls = 0
    let opened = -1
    expect(
      watchLifeline(
        env,
        () => calls++,
        (fd) => {
          opened = fd
          return sock as never
        }
      )
    ).toBe(true)
    expect(opened).toBe(3)
    expect(env.DRSTUDIO_LIFELINE_FD).toBeUndefined()
    sock.handlers.get('end')!()
    sock.handlers.get('close')!()
    expect(calls).toBe(1)
  })

  it('does nothing for an operator-run node, a bad value or a closed fd', () => {
    const never = () => {
      throw new Error('must not open')
    }
    expect(watchLifeline({}, () => {}, never)).toBe(false)
    expect(watchLifeline({ DRSTUDIO_LIFELINE_FD: 'x' }, () => {}, never)).toBe(false)
    expect(watchLifeline({ DRSTUDIO_LIFELINE_FD: '1' }, () => {}, never)).toBe(false)
    expect(watchLifeline({ DRSTUDIO_LIFELINE_FD: '9' }, () => {}, never)).toBe(false)
  })
})
