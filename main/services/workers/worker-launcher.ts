import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkerFactory, WorkerKey } from './client-fleet'
import type { ClientSpec } from '../worker-wire/protocol'
import { workerName } from './client-fleet'
import { isJavaLane } from '../../../common/topology/lanes'
import type { WorkerCommand } from './worker-channel'
import { WorkerConnection } from './worker-connection'
import { findAppPaths, nodeRuntimeCommand } from '../app-paths'
import type { DeathTie } from '../sandbox/processes'
import { detectDeathTie, tiedCommand } from '../sandbox/processes'
import { findJava } from '../sandbox/java'
import { locateRocketmqLib } from '../sandbox/rocketmq-lib'
import { javaWorkerCommand, javaWorkerJar, planJavaWorkers } from './java-worker-command'

/** How to run a Node program of ours: the built CLI in a packaged app, else the source via tsx. */
export interface NodeEntry {
  command: string
  /** Arguments before the subcommand's own (e.g. the CLI path, or `--import tsx <entry>`). */
  args: string[]
  env?: Record<string, string>
}

/**
 * The room-worker command: `drstudio worker` from the built CLI when it exists and `preferBuilt`,
 * else the TypeScript entry through tsx (tests and development run the source they see).
 */
export function roomWorkerEntry(root: string, opts: { preferBuilt: boolean }): NodeEntry {
  const cli = join(root, 'out', 'cli', 'drstudio.mjs')
  // Under Electron, process.execPath is the app binary: it must run as plain Node.
  const { command, env } = nodeRuntimeCommand()
  if (opts.preferBuilt && existsSync(cli)) return { command, args: [cli, 'worker'], env }
  const entry = join(root, 'main', 'services', 'room-worker', 'room-worker-main.ts')
  return { command, args: ['--import', 'tsx', entry], env }
}

export interface WorkerLaunchOptions {
  /** Node room workers. */
  node: NodeEntry
  /** The Java client worker's command for a room and lane (absent: java lanes are refused with the fix). */
  java?: (key: WorkerKey, first: ClientSpec) => WorkerCommand
  /** Runs a command inside a room's network (namespace prefix, parent-death wrapper); default none. */
  wrap?: (key: WorkerKey, argv: string[]) => string[]
  /** Folder of worker logs, read when a worker starts (a sandbox run folder). */
  logDir: () => string
  cwd?: string
}

let deathTie: DeathTie | undefined

/** Environment variable carrying a worker process's name (`worker-room1`, `java-worker-room2`…). */
export const WORKER_ENV = 'DRSTUDIO_WORKER'

/** Spawns real client-worker processes: the production WorkerFactory. */
export function processWorkers(opts: WorkerLaunchOptions): WorkerFactory {
  return (key, first) => {
    const name = workerName(key)
    let command: WorkerCommand
    if (!isJavaLane(key.lane)) {
      command = {
        argv: [opts.node.command, ...opts.node.args],
        env: { ...process.env, ...opts.node.env },
        ...(opts.cwd ? { cwd: opts.cwd } : {})
      }
    } else if (opts.java) {
      command = opts.java(key, first)
    } else {
      throw new Error(
        `${name}: the Java client worker is not available here; run \`npm run setup\` to build it (needs Java 17+ and Maven)`
      )
    }
    // Names the process for whoever looks at /proc (the benchmark's CPU sampler, an operator's ps).
    command = { ...command, env: { ...(command.env ?? process.env), [WORKER_ENV]: name } }
    const wrapped = opts.wrap ? opts.wrap(key, command.argv) : command.argv
    // Killed by the kernel when the engine dies (SIGKILL included), like every sandbox child.
    const tied = tiedCommand((deathTie ??= detectDeathTie()), wrapped[0]!, wrapped.slice(1))
    const argv = [tied.command, ...tied.args]
    return new WorkerConnection({
      name,
      command: { ...command, argv },
      logFile: join(opts.logDir(), 'workers', `${name}.log`)
    })
  }
}

/** Where a run's workers go: their log folder, and the room network each one runs in. */
export interface WorkerPlace {
  logDir(): string
  /** argv prefix running a worker inside its room's network (namespace), or [] on loopback. */
  prefix(workerId: string): string[]
}

/** Workers of a sandbox: logs in its run folder, each in its room's namespace when rooms are networks. */
export function sandboxPlace(
  sandbox: { runDir: string | null; workerPrefix(id: string): string[] },
  fallbackDir: string
): WorkerPlace {
  return {
    logDir: () => sandbox.runDir ?? fallbackDir,
    prefix: (id) => sandbox.workerPrefix(id)
  }
}

/** What building a Java worker's command looks up on this machine; injected in unit tests. */
export interface JavaWorkerLookup {
  /** The java executable (default: sandbox/java.ts findJava, settings > JAVA_HOME > PATH). */
  java?: () => string
  /** The pinned RocketMQ jars folder (default: the sandbox's, `.rocketmq/lib`). */
  rocketmqLib?: () => string
  exists?: (path: string) => boolean
  mkdir?: (path: string) => void
}

/**
 * The Java client worker's command for a room and lane: this checkout's worker jar (built by
 * `npm run setup`), the RocketMQ jars the sandbox runs, and the JVM-wide settings of the first
 * client it hosts (its address server; java-tuned's timers). Its folder (client logs, user.home)
 * is `<logDir>/workers/<java-room-lane>`. Looked up when a Java lane is first used, so a machine
 * without the jar runs every other lane.
 */
export function localJavaWorkers(opts: {
  root: string
  logDir: () => string
  javaHome?: string
  lookup?: JavaWorkerLookup
}): NonNullable<WorkerLaunchOptions['java']> {
  const l = opts.lookup ?? {}
  const exists = l.exists ?? existsSync
  return (key, first) => {
    const jar = javaWorkerJar(opts.root)
    if (!exists(jar)) {
      throw new Error(
        `${workerName(key)}: the Java client worker is not built (${jar} is missing); run \`npm run setup\` to build it (needs Java 17+ and Maven)`
      )
    }
    const plan = planJavaWorkers([first])[0]
    if (!plan)
      throw new Error(`${workerName(key)}: ${first.id} is on lane ${first.lane}, not a Java lane`)
    const workDir = join(opts.logDir(), 'workers', plan.workerId)
    ;(l.mkdir ?? ((p: string) => mkdirSync(p, { recursive: true })))(workDir)
    return javaWorkerCommand({
      java: l.java ? l.java() : findJava(opts.javaHome ? { javaHome: opts.javaHome } : {}).path,
      rocketmqLib: l.rocketmqLib ? l.rocketmqLib() : locateRocketmqLib({ repoRoot: opts.root }).dir,
      workerJar: jar,
      plan,
      workDir
    })
  }
}

/** Room workers and Java client workers spawned as child processes of this engine. */
export function localWorkers(opts: {
  root: string
  preferBuilt: boolean
  place: WorkerPlace
  /** Default: localJavaWorkers from this root. */
  java?: WorkerLaunchOptions['java']
}): WorkerFactory {
  return processWorkers({
    node: roomWorkerEntry(opts.root, { preferBuilt: opts.preferBuilt }),
    logDir: opts.place.logDir,
    // A lane variant's worker runs in its lane's worker's place (same room network and address).
    wrap: (key, argv) => [
      ...opts.place.prefix(workerName({ room: key.room, lane: key.lane })),
      ...argv
    ],
    cwd: opts.root,
    java: opts.java ?? localJavaWorkers({ root: opts.root, logDir: opts.place.logDir })
  })
}

/** Room workers from this checkout's TypeScript source (tests and benchmarks run what they see). */
export function sourceWorkers(place: WorkerPlace | string): WorkerFactory {
  const where =
    typeof place === 'string' ? { logDir: () => place, prefix: (): string[] => [] } : place
  return localWorkers({ root: findAppPaths().root, preferBuilt: false, place: where })
}
