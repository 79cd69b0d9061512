import { createHook } from 'node:async_hooks'
import { resolve } from 'node:path'
import { expect } from 'vitest'

// What would keep a `drstudio` process alive after its verdict: a socket, a server, a timer or a
// child process that is still referenced. Tracked from their creation (async_hooks), so a check
// names only what was opened after tracking began, with where it was opened.

/** Resource types that keep Node's event loop alive while referenced. */
const TRACKED = new Set(['TCPWRAP', 'TCPSERVERWRAP', 'Timeout', 'PROCESSWRAP', 'PIPEWRAP'])

const REPO = resolve(import.meta.dirname, '../../..')
const SELF = resolve(import.meta.dirname, 'live-handles.ts')

interface Tracked {
  type: string
  resource: { hasRef?: () => boolean }
  /** The first frames of this repository's code (not node_modules) that opened it. */
  origin: string[]
}

/** Resources opened since `trackHandles()` and still alive. */
export interface HandleTracker {
  /**
   * What is still alive and referenced, one line each (type, addresses, where it was opened).
   * Waits up to `settleMs` for closes already under way (a destroyed socket closes on the next tick).
   */
  alive(settleMs?: number): Promise<string[]>
  /** Stops tracking. */
  stop(): void
}

/**
 * The code of this repository in a stack, innermost first, one frame per file in a row (so the
 * owner shows past the remoting internals); node_modules and node internals left out.
 */
function repoFrames(stack: string): string[] {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''))
    .filter((l) => l.includes(REPO) && !l.includes('node_modules') && !l.includes(SELF))
    .map((l) => l.replace('file://', '').replace(`${REPO}/`, ''))
  const fileOf = (frame: string): string => /([\w./-]+\.[cm]?[jt]s):\d+/.exec(frame)?.[1] ?? frame
  return frames.filter((f, i) => i === 0 || fileOf(f) !== fileOf(frames[i - 1]!))
}

/** 'TCPWRAP 127.0.0.1:40012 → 127.0.0.1:9876' for a socket; the type alone otherwise. */
function describe(t: Tracked): string {
  const r = t.resource as {
    getsockname?: (out: Record<string, unknown>) => number
    getpeername?: (out: Record<string, unknown>) => number
    _idleTimeout?: number
    _repeat?: number | null
  }
  let what = t.type
  if (t.type === 'TCPWRAP' || t.type === 'TCPSERVERWRAP') {
    const local: Record<string, unknown> = {}
    const peer: Record<string, unknown> = {}
    r.getsockname?.(local)
    if (t.type === 'TCPWRAP') r.getpeername?.(peer)
    what += ` ${String(local.address ?? '?')}:${String(local.port ?? '?')}`
    if (peer.address) what += ` → ${String(peer.address)}:${String(peer.port)}`
  } else if (t.type === 'Timeout') {
    what += ` ${r._repeat ? 'every' : 'in'} ${r._idleTimeout ?? '?'} ms`
  }
  return `${what} (opened at ${t.origin.slice(0, 6).join(' ← ') || 'an unknown place'})`
}

/**
 * Starts recording every socket, server, timer and child process opened from here on, by code of
 * this repository (vitest's own timers are not ours to judge). Resources opened before are never
 * reported, so a long-lived cluster client of the test does not count.
 */
export function trackHandles(): HandleTracker {
  const live = new Map<number, Tracked>()
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (!TRACKED.has(type)) return
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 40
      const stack = new Error().stack ?? ''
      Error.stackTraceLimit = limit
      const origin = repoFrames(stack)
      if (origin.length === 0) return
      live.set(id, { type, resource: resource as Tracked['resource'], origin })
    },
    destroy(id) {
      live.delete(id)
    }
  })
  hook.enable()
  const referenced = (): Tracked[] =>
    [...live.values()].filter((t) => t.resource.hasRef?.() ?? true)
  return {
    async alive(settleMs = 500) {
      const deadline = Date.now() + settleMs
      for (;;) {
        // Unreferenced: the helper's own wait must not count, so it is unref'd.
        await new Promise<void>((r) => setTimeout(r, 20).unref())
        const left = referenced()
        if (left.length === 0 || Date.now() >= deadline) return left.map(describe)
      }
    },
    stop() {
      hook.disable()
      live.clear()
    }
  }
}

/**
 * Asserts that nothing `tracker` saw opened is still alive and referenced (what would keep a CLI
 * process running after its verdict), then stops tracking.
 */
export async function expectNothingLeft(tracker: HandleTracker, since: string): Promise<void> {
  const left = await tracker.alive()
  tracker.stop()
  expect(left, `opened ${since} and still alive`).toEqual([])
}
