import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { ExecPort, LineProcess } from './exec'

/** Where `scripts/build-native.mjs` puts the router (built from resources/network/delay-router.c). */
export function defaultDelayRouterPath(appRoot: string): string {
  return join(appRoot, 'out', 'native', 'drs-delay-router')
}

export const DELAY_ROUTER_FIX =
  'run `npm run setup` (or `node scripts/build-native.mjs`) to build out/native/drs-delay-router; it needs gcc'

const REPLY_TIMEOUT_MS = 5000

/**
 * The TUN delay router process inside the core namespace. Commands are answered in order, one
 * reply line each, so a queue of pending promises pairs them up.
 */
export class DelayRouter {
  private pending: { resolve: (line: string) => void; reject: (e: Error) => void }[] = []
  private dead: string | null = null

  private constructor(private readonly proc: LineProcess) {
    proc.onLine((line) => {
      const next = this.pending.shift()
      if (next) next.resolve(line)
    })
    void proc.exited.then((e) => {
      this.dead = `the delay router exited (${e.signal ?? e.code})${e.stderr ? `: ${e.stderr.trim()}` : ''}`
      for (const p of this.pending.splice(0)) p.reject(new Error(this.dead))
    })
  }

  /** False once the process has exited (its TUN device is gone with it). */
  get alive(): boolean {
    return this.dead === null
  }

  get pid(): number {
    return this.proc.pid
  }

  /** Starts the router in `ns` and waits for its `ready` line (the TUN device is then up). */
  static async start(
    exec: ExecPort,
    binary: string,
    ns: string,
    tun: string
  ): Promise<DelayRouter> {
    if (!existsSync(binary)) {
      throw new Error(
        `the delay router ${binary} is missing, so latency faults cannot run; ${DELAY_ROUTER_FIX}`
      )
    }
    const router = new DelayRouter(exec.start(['ip', 'netns', 'exec', ns, binary, tun]))
    const first = await router.reply()
    if (first !== `ready ${tun}`) {
      router.proc.kill('SIGKILL')
      throw new Error(`the delay router did not start in ${ns}: ${first}`)
    }
    return router
  }

  private reply(): Promise<string> {
    if (this.dead) return Promise.reject(new Error(this.dead))
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the delay router did not answer within 5 s')),
        REPLY_TIMEOUT_MS
      )
      this.pending.push({
        resolve: (l) => {
          clearTimeout(timer)
          resolve(l)
        },
        reject: (e) => {
          clearTimeout(timer)
          reject(e)
        }
      })
    })
  }

  /** Sends one command; resolves on `ok` (or the stats line), rejects on `error ...`. */
  async command(line: string): Promise<string> {
    const answer = this.reply()
    if (!this.dead) this.proc.send(line)
    const text = await answer
    if (text.startsWith('error')) throw new Error(`delay router refused "${line}": ${text}`)
    return text
  }

  /** Ends the router (closing stdin is enough; SIGKILL if it lingers). Its TUN goes with it. */
  async stop(): Promise<void> {
    if (this.dead) return
    this.proc.closeInput()
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 2000)
    await this.proc.exited
    clearTimeout(timer)
  }

  /** For exit handlers: no waiting. */
  killNow(): void {
    if (!this.dead) this.proc.kill('SIGKILL')
  }
}
