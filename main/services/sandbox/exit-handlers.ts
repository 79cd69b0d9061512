/** Something that must die with this process: a sandbox's children, a network lab's namespaces. */
export interface ExitCleanup {
  /** Synchronous: exit handlers cannot wait. */
  cleanupSync(): void
}

const live = new Set<ExitCleanup>()
let installed = false
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

function cleanupAll(): void {
  for (const c of live) {
    try {
      c.cleanupSync()
    } catch {
      // best effort: the rest must still run
    }
  }
}

function onFatalSignal(signal: NodeJS.Signals): void {
  cleanupAll()
  // Re-raise with the default action when nobody else handles it, so Ctrl-C still exits.
  if (process.listenerCount(signal) === 1) {
    uninstall()
    process.kill(process.pid, signal)
  }
}

function install(): void {
  if (installed) return
  installed = true
  process.on('exit', cleanupAll)
  for (const s of SIGNALS) process.on(s, onFatalSignal)
}

function uninstall(): void {
  if (!installed) return
  installed = false
  process.off('exit', cleanupAll)
  for (const s of SIGNALS) process.off(s, onFatalSignal)
}

/**
 * Registers a cleanup to run synchronously on exit, SIGINT, SIGTERM and SIGHUP (SIGKILL cannot be
 * caught: the parent-death signal and the next start's sweep cover it). Returns the unregister.
 */
export function onProcessExit(cleanup: ExitCleanup, installHandlers = true): () => void {
  live.add(cleanup)
  if (installHandlers) install()
  return () => {
    live.delete(cleanup)
    if (live.size === 0) uninstall()
  }
}
