import { spawn, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect, createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  detectDeathTie,
  tiedCommand,
  type DeathTie
} from '../../../main/services/sandbox/processes'

/** Jars fetched by `mvn dependency:copy-dependencies` (rocketmq-namesrv + rocketmq-proxy 5.3.3). */
export const ROCKETMQ_LIB = resolve(import.meta.dirname, '../../../.rocketmq/lib')

let deathTie: DeathTie | undefined

/**
 * `java` with these arguments, tied to the test process's life as the sandbox ties its JVMs
 * (setpriv --pdeathsig KILL): a killed test run leaves no hand-started JVM behind.
 */
function tiedJava(args: string[]): { command: string; args: string[] } {
  deathTie ??= detectDeathTie()
  return tiedCommand(deathTie, 'java', args)
}

/** A RocketMQ JVM started by a test; `stop()` is idempotent and waits for the exit. */
export interface JvmProcess {
  name: string
  pid: number
  port: number
  address: string
  dir: string
  logFile: string
  child: ChildProcess
  /** The exact command and environment it was started with (to start it again by hand). */
  argv: string[]
  env: Record<string, string>
  /** Sends a signal (default SIGKILL) and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

const running = new Set<ChildProcess>()

// Last line of defence against orphans if a test run dies without reaching afterAll.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Fails fast with the fix when the jars are missing. */
export function assertJars(): void {
  if (!existsSync(ROCKETMQ_LIB) || !readdirSync(ROCKETMQ_LIB).some((f) => f.endsWith('.jar'))) {
    throw new Error(
      `No RocketMQ jars in ${ROCKETMQ_LIB}. Fetch them with a pom depending on ` +
        'org.apache.rocketmq:rocketmq-namesrv:5.3.3 and rocketmq-proxy:5.3.3, then ' +
        `mvn -q dependency:copy-dependencies -DoutputDirectory=${ROCKETMQ_LIB}`
    )
  }
}

/** A fresh scratch directory for one test file's JVMs. */
export async function makeRunDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `drstudio-it-${prefix}-`))
}

/** Removes a run directory unless KEEP_RUN_DIR is set (to read broker logs after a failure). */
export async function removeRunDir(dir: string): Promise<void> {
  if (!process.env.KEEP_RUN_DIR) await rm(dir, { recursive: true, force: true })
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer()
    s.once('error', () => done(false))
    s.listen(port, '127.0.0.1', () => s.close(() => done(true)))
  })
}

/** An ephemeral loopback port; with `alsoFree` offsets, every port+offset is free too. */
export async function freePort(alsoFree: number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((done, fail) => {
      const s = createServer()
      s.once('error', fail)
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port
        s.close(() => done(p))
      })
    })
    const others = alsoFree.map((o) => port + o)
    if (others.some((p) => p <= 1024 || p > 65535)) continue
    if ((await Promise.all(others.map(portIsFree))).every(Boolean)) return port
  }
  throw new Error('could not find a free loopback port range')
}

/** Resolves once a TCP connect to 127.0.0.1:port succeeds; polls until the deadline. */
export async function waitForPort(port: number, deadline: number): Promise<void> {
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const ok = await new Promise<boolean>((done) => {
      const s = connect({ host: '127.0.0.1', port })
      s.once('connect', () => {
        s.destroy()
        done(true)
      })
      s.once('error', () => done(false))
    })
    if (ok) return
    if (Date.now() > deadline) throw new Error(`port ${port} never answered`)
    await new Promise((r) => setTimeout(r, delay))
  }
}

interface StartSpec {
  name: string
  dir: string
  port: number
  mainClass: string
  args: string[]
  heap: string[]
  logback: string
  env?: Record<string, string>
  readyLine: RegExp
  timeoutMs?: number
}

async function startJvm(spec: StartSpec): Promise<JvmProcess> {
  assertJars()
  const logFile = join(spec.dir, 'stdout.log')
  const env: Record<string, string | undefined> = { ...process.env }
  // Inherited values would silently change where brokers register and which room they claim.
  delete env.NAMESRV_ADDR
  delete env.ROCKETMQ_HOME
  delete env.ROCKETMQ_ZONE
  delete env.ROCKETMQ_ZONE_MODE
  Object.assign(env, spec.env)
  const javaArgs = [
    ...spec.heap,
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:+IgnoreUnrecognizedVMOptions',
    '--add-opens=java.base/java.nio=ALL-UNNAMED',
    '--add-opens=java.base/java.lang=ALL-UNNAMED',
    '--add-exports=java.base/sun.nio.ch=ALL-UNNAMED',
    `-Drocketmq.home.dir=${spec.dir}`,
    `-Duser.home=${spec.dir}`,
    `-Drmq.logback.configurationFile=${spec.logback}`,
    '-cp',
    `${ROCKETMQ_LIB}/*`,
    spec.mainClass,
    ...spec.args
  ]
  const tied = tiedJava(javaArgs)
  const child = spawn(tied.command, tied.args, {
    cwd: spec.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  running.add(child)
  const exited = new Promise<void>((done) => {
    child.once('exit', () => {
      running.delete(child)
      done()
    })
  })
  const log = createWriteStream(logFile)
  let tail = ''
  const deadline = Date.now() + (spec.timeoutMs ?? 120_000)

  const ready = new Promise<void>((resolveReady, rejectReady) => {
    const onData = (chunk: Buffer): void => {
      log.write(chunk)
      tail = (tail + chunk.toString('utf8')).slice(-4000)
      if (spec.readyLine.test(tail)) {
        child.stdout?.off('data', onData)
        child.stdout?.on('data', (c: Buffer) => log.write(c))
        resolveReady()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (c: Buffer) => {
      log.write(c)
      tail = (tail + c.toString('utf8')).slice(-4000)
    })
    child.once('error', (e) => rejectReady(e))
    child.once('exit', (code, signal) =>
      rejectReady(
        new Error(`${spec.name} exited (code ${code}, signal ${signal}) before boot:\n${tail}`)
      )
    )
    const timer = setTimeout(
      () => rejectReady(new Error(`${spec.name} did not boot in time:\n${tail}`)),
      deadline - Date.now()
    )
    timer.unref()
  })

  const proc: JvmProcess = {
    name: spec.name,
    pid: child.pid ?? -1,
    port: spec.port,
    address: `127.0.0.1:${spec.port}`,
    dir: spec.dir,
    logFile,
    child,
    argv: ['java', ...javaArgs],
    env: { ...(spec.env ?? {}) },
    stop: async (signal: NodeJS.Signals = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
      log.end()
    }
  }
  try {
    await ready
    await waitForPort(spec.port, deadline)
  } catch (e) {
    await proc.stop()
    throw e
  }
  return proc
}

/** Boots one name server on a free loopback port; `env` e.g. ROCKETMQ_SERIALIZE_TYPE=ROCKETMQ. */
export async function startNamesrv(
  root: string,
  options: { name?: string; env?: Record<string, string> } = {}
): Promise<JvmProcess> {
  const name = options.name ?? 'ns1'
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  const port = await freePort()
  const conf = join(dir, 'namesrv.conf')
  writeFileSync(
    conf,
    [
      `listenPort=${port}`,
      `kvConfigPath=${join(dir, 'kvConfig.json')}`,
      'bindAddress=127.0.0.1'
    ].join('\n') + '\n'
  )
  return startJvm({
    name,
    dir,
    port,
    mainClass: 'org.apache.rocketmq.namesrv.NamesrvStartup',
    args: ['-c', conf],
    heap: ['-Xms64m', '-Xmx128m'],
    logback: 'rmq.namesrv.logback.xml',
    ...(options.env ? { env: options.env } : {}),
    readyLine: /The Name Server boot success/
  })
}

/** Options of a test broker (one master). */
export interface BrokerSpec {
  /** Static name servers; omit to let extraConf point the broker at an address server instead. */
  namesrvAddr?: string
  brokerName?: string
  clusterName?: string
  /** ROCKETMQ_ZONE (default room1); null starts the broker without a zone, as many operators do. */
  zone?: string | null
  extraConf?: Record<string, string | number | boolean>
}

/** Boots one master broker (ROCKETMQ_ZONE = its room) on free loopback ports. */
export async function startBroker(root: string, spec: BrokerSpec): Promise<JvmProcess> {
  const brokerName = spec.brokerName ?? 'broker-a'
  const dir = join(root, brokerName)
  mkdirSync(dir, { recursive: true })
  // listenPort-2 is the "fast" port and listenPort+1 the HA port; all three must be free.
  const port = await freePort([-2, 1])
  const conf: Record<string, string | number | boolean> = {
    brokerClusterName: spec.clusterName ?? 'DefaultCluster',
    brokerName,
    brokerId: 0,
    listenPort: port,
    ...(spec.namesrvAddr ? { namesrvAddr: spec.namesrvAddr } : {}),
    storePathRootDir: join(dir, 'store'),
    mappedFileSizeCommitLog: 10485760,
    mappedFileSizeConsumeQueue: 60000,
    maxHashSlotNum: 4000,
    maxIndexNum: 1000,
    timerWheelEnable: false,
    brokerIP1: '127.0.0.1',
    brokerIP2: '127.0.0.1',
    autoCreateTopicEnable: false,
    ...spec.extraConf
  }
  const confFile = join(dir, 'broker.conf')
  writeFileSync(
    confFile,
    Object.entries(conf)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n') + '\n'
  )
  return startJvm({
    name: brokerName,
    dir,
    port,
    mainClass: 'org.apache.rocketmq.broker.BrokerStartup',
    args: ['-c', confFile],
    heap: ['-Xms64m', '-Xmx256m', '-XX:MaxDirectMemorySize=256m'],
    logback: 'rmq.broker.logback.xml',
    env: spec.zone === null ? {} : { ROCKETMQ_ZONE: spec.zone ?? 'room1' },
    readyLine: /The broker\[.*\] boot success/
  })
}

/** Kills every JVM this helper started (SIGKILL) and waits for them to exit. */
export async function stopAllJvms(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once('exit', () => done())
          child.kill('SIGKILL')
        })
    )
  )
}

/** PIDs of JVMs from this helper that are still alive (for the no-orphans assertion). */
export function runningJvmPids(): number[] {
  return [...running].map((c) => c.pid ?? -1)
}

/** Runs a one-file Java program (JDK source launcher) with the RocketMQ jars on the classpath. */
export async function runJavaSource(
  file: string,
  args: string[],
  systemProperties: Record<string, string> = {},
  timeoutMs = 60_000
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  assertJars()
  const tied = tiedJava([
    '-Xmx64m',
    '-XX:TieredStopAtLevel=1',
    ...Object.entries(systemProperties).map(([k, v]) => `-D${k}=${v}`),
    '-cp',
    `${ROCKETMQ_LIB}/*`,
    file,
    ...args
  ])
  const child = spawn(tied.command, tied.args, { stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')))
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)))
  clearTimeout(timer)
  running.delete(child)
  return { code, stdout, stderr }
}
