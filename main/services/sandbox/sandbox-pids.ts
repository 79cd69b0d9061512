import type { PidEntry } from './orphans'
import { isPidAlive } from '../pid-alive'
import { planOrphanSweep, readPidFile, updatePidFile, writePidFile } from './orphans'
import type { ProcFs } from './procfs'
import type { ProcessSpawner } from './processes'
import type { Clock } from './readiness'

/** The sandbox's pids.json: which child runs for which run, so a later process can sweep orphans. */
export class SandboxPids {
  constructor(
    private readonly file: string,
    private readonly clock: Clock
  ) {}

  record(nodeId: string, pid: number, runDir: string): void {
    const entry: PidEntry = {
      pid,
      nodeId,
      runDir,
      ownerPid: process.pid,
      startedAt: this.clock.now()
    }
    updatePidFile(this.file, (entries) => [...entries.filter((e) => e.pid !== pid), entry])
  }

  forget(pid: number): void {
    updatePidFile(this.file, (entries) => entries.filter((e) => e.pid !== pid))
  }

  forgetRun(runDir: string): void {
    updatePidFile(this.file, (entries) => entries.filter((e) => e.runDir !== runDir))
  }

  /** Run folders that must survive pruning: recorded ones and those of live sandboxes. */
  foldersInUse(liveRunDirs: string[]): Set<string> {
    return new Set([...readPidFile(this.file).map((e) => e.runDir), ...liveRunDirs])
  }

  /**
   * Kills processes recorded by a DR Studio process that is gone, when the pid still runs a
   * command line containing its run folder. Returns how many were killed.
   */
  sweep(deps: {
    procFs: () => ProcFs
    liveRunDirs: string[]
    spawner: ProcessSpawner
    progress: (nodeId: string, message: string) => void
  }): number {
    const entries = readPidFile(this.file)
    if (entries.length === 0) return 0
    const plan = planOrphanSweep(entries, {
      procFs: deps.procFs(),
      liveRunDirs: new Set(deps.liveRunDirs),
      selfPid: process.pid,
      isAlive: isPidAlive
    })
    for (const entry of plan.kill) {
      deps.spawner.signal(entry.pid, 'SIGKILL')
      deps.progress(
        entry.nodeId,
        `killed orphan pid ${entry.pid} left by an earlier run (${entry.runDir})`
      )
    }
    writePidFile(this.file, plan.keep)
    return plan.kill.length
  }
}
