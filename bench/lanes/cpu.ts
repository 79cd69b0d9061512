// Where a lane's time goes on a shared 2-core host: per client worker process (named by
// DRSTUDIO_WORKER), the CPU it got and the time its threads were runnable but waiting for a CPU,
// from /proc/<pid>/task/*/schedstat (ns on CPU, ns waiting on a run queue, timeslices). Linux
// shares CPU per thread, so a one-thread Node worker and a JVM with dozens of runnable threads do
// not get the same share when the machine is saturated; this says how much that mattered.
import { readdirSync, readFileSync } from 'node:fs'
import { WORKER_ENV } from '../../main/services/workers/worker-launcher'

export interface WorkerCpu {
  worker: string
  /** Over the sampled window: ms of CPU per second of wall time, and ms of run-queue wait per second. */
  cpuMsPerSec: number
  waitMsPerSec: number
  threads: number
}

interface Sample {
  at: number
  run: number
  wait: number
  threads: number
}

/** A client worker by its DRSTUDIO_WORKER name, or a sandbox node (`node:broker-1`) by its run folder. */
function workerOf(pid: string, within: string): string | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    const hit = env.find((e) => e.startsWith(`${WORKER_ENV}=`))
    if (hit) return hit.slice(WORKER_ENV.length + 1)
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    const node =
      /rocketmq\.home\.dir=[^\0]*\/([^/\0]+)\0/.exec(cmd) ??
      /\/([^/\0]+)\/management\.json/.exec(cmd)
    return node && cmd.includes(within) ? `node:${node[1]}` : null
  } catch {
    return null
  }
}

function schedOf(pid: string): { run: number; wait: number; threads: number } | null {
  try {
    let run = 0
    let wait = 0
    const tasks = readdirSync(`/proc/${pid}/task`)
    for (const t of tasks) {
      const [r, w] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')
      run += Number(r)
      wait += Number(w)
    }
    return { run, wait, threads: tasks.length }
  } catch {
    return null
  }
}

/** Samples every client worker while running; stop() returns each worker's figures. */
export class CpuSampler {
  private readonly names = new Map<string, string | null>()
  private readonly first = new Map<string, Sample>()
  private readonly last = new Map<string, Sample>()
  private timer: NodeJS.Timeout | undefined

  /** `within`: a path every sandbox node of this run has on its command line (the data folder). */
  constructor(private readonly within: string) {}

  start(everyMs = 500): void {
    this.sample()
    this.timer = setInterval(() => this.sample(), everyMs)
    this.timer.unref()
  }

  stop(): WorkerCpu[] {
    if (this.timer) clearInterval(this.timer)
    this.sample()
    const out: WorkerCpu[] = []
    for (const [pid, a] of this.first) {
      const b = this.last.get(pid)
      const worker = this.names.get(pid)
      if (!b || !worker || b.at - a.at < 1000) continue
      const secs = (b.at - a.at) / 1000
      out.push({
        worker,
        cpuMsPerSec: Math.round(((b.run - a.run) / 1e6 / secs) * 10) / 10,
        waitMsPerSec: Math.round(((b.wait - a.wait) / 1e6 / secs) * 10) / 10,
        threads: b.threads
      })
    }
    return out.sort((x, y) => x.worker.localeCompare(y.worker))
  }

  private sample(): void {
    const at = Date.now()
    let pids: string[]
    try {
      pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p))
    } catch {
      return
    }
    for (const pid of pids) {
      if (!this.names.has(pid)) this.names.set(pid, workerOf(pid, this.within))
      if (!this.names.get(pid)) continue
      const s = schedOf(pid)
      if (!s) continue
      const sample = { at, ...s }
      if (!this.first.has(pid)) this.first.set(pid, sample)
      this.last.set(pid, sample)
    }
  }
}
