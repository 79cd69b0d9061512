import type { ExecPort, ExecResult, LineProcess } from './exec'

/** A recorded command: argv joined by spaces, plus its stdin. */
export interface Call {
  cmd: string
  input?: string
}

type Responder = (cmd: string, input: string | undefined) => Partial<ExecResult> | undefined

/**
 * Test double of the exec port: keeps a namespace list that `netns add/del` batches change, answers
 * everything else with success unless a responder says otherwise, and records every call.
 */
export class FakeExec implements ExecPort {
  readonly calls: Call[] = []
  readonly namespaces = new Set<string>()
  readonly links = new Set<string>()
  readonly started: { argv: string[]; sent: string[]; closed: boolean }[] = []
  /** Handles on the started routers, to make one die. */
  readonly routers: { die(): void }[] = []
  responders: Responder[] = []

  private answer(argv: readonly string[], input?: string): ExecResult {
    const cmd = argv.join(' ')
    this.calls.push(input === undefined ? { cmd } : { cmd, input })
    for (const r of this.responders) {
      const got = r(cmd, input)
      if (got) return { code: 0, stdout: '', stderr: '', ...got }
    }
    if (cmd === 'ip netns list')
      return ok([...this.namespaces].map((n) => `${n} (id: 1)`).join('\n'))
    if (cmd === 'ip -j link show')
      return ok(JSON.stringify([...this.links].map((ifname) => ({ ifname }))))
    if (cmd.startsWith('ip -j -4')) return ok('[]')
    if (cmd.includes('netem'))
      return { code: 2, stdout: '', stderr: 'Error: Specified qdisc kind is unknown.' }
    if (/^ip (-force )?-batch -$/.test(cmd)) {
      for (const line of (input ?? '').split('\n')) {
        const add = /^netns add (\S+)$/.exec(line)
        const del = /^netns del (\S+)$/.exec(line)
        if (add) this.namespaces.add(add[1]!)
        if (del) this.namespaces.delete(del[1]!)
      }
    }
    const host = /^ip link add (\S+) type veth/.exec(cmd)
    if (host) this.links.add(host[1]!)
    const del = /^ip link del (\S+)$/.exec(cmd)
    if (del) this.links.delete(del[1]!)
    return ok('')
  }

  run(argv: readonly string[], input?: string): Promise<ExecResult> {
    return Promise.resolve(this.answer(argv, input))
  }

  runSync(argv: readonly string[], input?: string): ExecResult {
    return this.answer(argv, input)
  }

  /** A delay router that says ready, then `ok` to every line. */
  start(argv: readonly string[]): LineProcess {
    const entry = { argv: [...argv], sent: [] as string[], closed: false }
    this.started.push(entry)
    const listeners: ((l: string) => void)[] = []
    let exit: (v: {
      code: number | null
      signal: NodeJS.Signals | null
      stderr: string
    }) => void = () => {}
    const exited = new Promise<{
      code: number | null
      signal: NodeJS.Signals | null
      stderr: string
    }>((r) => (exit = r))
    const emit = (line: string) => queueMicrotask(() => listeners.forEach((l) => l(line)))
    emit(`ready ${argv[argv.length - 1]}`)
    this.routers.push({ die: () => exit({ code: null, signal: 'SIGKILL', stderr: '' }) })
    return {
      pid: 90000 + this.started.length,
      send: (line) => {
        entry.sent.push(line)
        this.calls.push({ cmd: `router: ${line}` })
        emit('ok')
      },
      onLine: (l) => listeners.push(l),
      closeInput: () => {
        entry.closed = true
        exit({ code: 0, signal: null, stderr: '' })
      },
      kill: (signal) => exit({ code: null, signal, stderr: '' }),
      exited
    }
  }

  /** Commands (without stdin) in call order, optionally only those matching. */
  commands(match?: RegExp): string[] {
    return this.calls.map((c) => c.cmd).filter((c) => !match || match.test(c))
  }

  clear(): void {
    this.calls.length = 0
  }
}

function ok(stdout: string): ExecResult {
  return { code: 0, stdout, stderr: '' }
}
