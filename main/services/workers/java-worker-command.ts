import { delimiter, dirname, join } from 'node:path'
import { scrubEnv } from '../sandbox/jvm'
import type { JavaLane } from '../../../common/topology/lanes'
import { isJavaLane } from '../../../common/topology/lanes'
import type { ClientSpec } from '../worker-wire/protocol'
import type { WorkerCommand } from './worker-channel'

/**
 * How the engine launches the Java client worker (resources/java-worker). The address server, zone
 * mode and a few client timers of the stock RocketMQ Java client are JVM-wide system properties, so
 * the engine runs **one JVM per (room, lane)**: a room with `java` and `java-zone` clients gets two
 * JVMs (zone mode must not filter the `java` clients' routes), and `java-tuned`'s JVM-wide knobs
 * (rebalance interval, connect timeout) never leak into the stock lanes. Each JVM is small
 * (-Xmx128m, serial GC, C1 only).
 */

export const JAVA_WORKER_JAR = 'drstudio-java-worker.jar'
/** The room-aware extension of the Java client (resources/java-dr), which the java-dr lane loads. */
export const JAVA_DR_JAR = 'drstudio-rocketmq-dr.jar'
export const JAVA_WORKER_MAIN = 'io.drstudio.javaworker.Main'

/** Where scripts/build-java-worker.mjs puts the jar (`npm run setup` builds it). */
export function javaWorkerJar(repoRoot: string): string {
  return join(repoRoot, '.rocketmq', 'java-worker', JAVA_WORKER_JAR)
}

/** The extension's jar, next to the worker's: the build script puts both in one folder. */
export function javaDrJarBeside(workerJar: string): string {
  return join(dirname(workerJar), JAVA_DR_JAR)
}

/** java-tuned's JVM-wide defaults when the scenario gives no tuning. */
export const TUNED_JVM_DEFAULTS = { requestTimeoutMs: 1000, rebalanceIntervalMs: 2000 } as const
/** java-dr's JVM-wide rebalance interval when the scenario gives none: our consumer's 1 s. */
export const DR_JVM_DEFAULTS = { rebalanceIntervalMs: 1000, connectTimeoutMs: 1000 } as const

/** One JVM's worth of Java clients. */
export interface JavaWorkerPlan {
  /** `java-<room>-<lane>`: the WorkerConnection name and the worker's folder in the run folder. */
  workerId: string
  room: string
  lane: JavaLane
  /** `host:port` of the room's management node (RocketMQ's address server), or null for static lists. */
  addressServer: string | null
  /** JVM-wide knobs (java-tuned only), from the clients' tuning. */
  tuning: { requestTimeoutMs?: number; rebalanceIntervalMs?: number }
  clients: ClientSpec[]
}

/** `http://198.18.1.4:8080/` → `198.18.1.4:8080`, what `rocketmq.namesrv.domain` takes. */
export function addressServerOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(url)
  if (!m) throw new Error(`management node URL ${JSON.stringify(url)} is not http://host:port`)
  return m[1]!
}

/** The address server a Java client uses: its own room's management node, else none (static list). */
export function addressServerFor(spec: ClientSpec): string | null {
  const own = spec.managementNodes.find((m) => m.room === spec.room) ?? spec.managementNodes[0]
  return own ? addressServerOf(own.url) : null
}

/**
 * Groups the Java-lane clients into JVMs, one per (room, lane), in the order the clients come.
 * Clients that would need different JVM-wide settings in one JVM are refused, naming both.
 */
export function planJavaWorkers(specs: ClientSpec[]): JavaWorkerPlan[] {
  const plans = new Map<string, JavaWorkerPlan>()
  const firstOf = new Map<string, ClientSpec>()
  for (const spec of specs) {
    if (!isJavaLane(spec.lane)) continue
    const lane: JavaLane = spec.lane
    const workerId = `java-${spec.room}-${lane}`
    const addressServer = addressServerFor(spec)
    const tuning =
      lane === 'java-tuned'
        ? pickDefined({
            requestTimeoutMs: spec.tuning.requestTimeoutMs,
            rebalanceIntervalMs: spec.tuning.rebalanceIntervalMs
          })
        : lane === 'java-dr'
          ? pickDefined({ rebalanceIntervalMs: spec.tuning.rebalanceIntervalMs })
          : {}
    const plan = plans.get(workerId)
    if (!plan) {
      plans.set(workerId, {
        workerId,
        room: spec.room,
        lane,
        addressServer,
        tuning,
        clients: [spec]
      })
      firstOf.set(workerId, spec)
      continue
    }
    const first = firstOf.get(workerId)!
    if (plan.addressServer !== addressServer) {
      throw new Error(
        `Java clients ${first.id} and ${spec.id} (room ${spec.room}, lane ${lane}) use different address servers ` +
          `(${plan.addressServer ?? 'none'} vs ${addressServer ?? 'none'}); give every client of a room the same management node`
      )
    }
    if (JSON.stringify(plan.tuning) !== JSON.stringify(tuning)) {
      throw new Error(
        `${lane} clients ${first.id} and ${spec.id} in room ${spec.room} differ in ` +
          (lane === 'java-dr'
            ? 'rebalanceIntervalMs, which is'
            : 'requestTimeoutMs or rebalanceIntervalMs, which are') +
          ' JVM-wide for the Java client; give them the same tuning'
      )
    }
    plan.clients.push(spec)
  }
  return [...plans.values()]
}

export interface JavaWorkerCommandInput {
  /** The java executable (sandbox/java.ts findJava().path). */
  java: string
  /** Folder of the pinned RocketMQ jars (`.rocketmq/lib`). */
  rocketmqLib: string
  /** The worker jar (javaWorkerJar()). */
  workerJar: string
  plan: Pick<JavaWorkerPlan, 'workerId' | 'room' | 'lane' | 'addressServer' | 'tuning'>
  /** The worker's folder in the run folder: client logs and user.home go there. */
  workDir: string
  /** Put in front of java: a namespace prefix (`ip netns exec room1`) or a parent-death wrapper. */
  prefix?: string[]
  /** Base environment (default process.env); variables that would re-route a client are removed. */
  env?: NodeJS.ProcessEnv
}

/** Small and quick to start: a worker hosts a handful of clients, several JVMs run at once. */
export const JAVA_WORKER_JVM = [
  '-Xms32m',
  '-Xmx128m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  // HotSpot prints its warnings on stdout by default, which would break the frame stream.
  '-XX:+DisplayVMOutputToStderr'
]

/** The argv, environment and folder to start one Java worker; a pure function of its input. */
export function javaWorkerCommand(input: JavaWorkerCommandInput): WorkerCommand {
  const { plan, workDir } = input
  const props: string[] = [
    `-Ddrstudio.workerId=${plan.workerId}`,
    `-Ddrstudio.room=${plan.room}`,
    `-Ddrstudio.lane=${plan.lane}`,
    // user.home holds ~/logs and the client's local offset store: keep both in the run folder.
    `-Duser.home=${workDir}`,
    `-Drocketmq.log.root=${join(workDir, 'logs')}`,
    // Every sandbox jar ships a logback config; pick the client's (5.3.3 DefaultJoranConfiguratorExt).
    '-Drmq.logback.configurationFile=rmq.client.logback.xml',
    '-Dlogback.statusListenerClass=org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener'
  ]
  if (plan.addressServer) {
    // Used only when no name-server address is set (MQClientInstance.start); the worker sets one
    // only for clients without a management node.
    props.push(
      `-Drocketmq.namesrv.domain=${plan.addressServer}`,
      '-Drocketmq.namesrv.domain.subgroup=nsaddr'
    )
  }
  if (plan.lane === 'java-zone') {
    // DynamicalExtFieldRPCHook adds __ZONE_NAME/__ZONE_MODE to every request; the name servers'
    // ZoneRouteRPCHook then returns only this room's brokers (a strict filter, no fallback).
    props.push(`-Drocketmq.zone=${plan.room}`, '-Drocketmq.zone.mode=true')
  }
  if (plan.lane === 'java-tuned') {
    const t = { ...TUNED_JVM_DEFAULTS, ...plan.tuning }
    props.push(
      // RebalanceService.waitInterval (stock 20 s): consumers pick up queues of a dead peer sooner.
      `-Drocketmq.client.rebalance.waitInterval=${t.rebalanceIntervalMs}`,
      // NettySystemConfig.connectTimeoutMillis (stock 3 s): an unreachable broker fails sooner; not
      // below 1 s, where a loaded machine's slow accept already counts as a failure.
      `-Dcom.rocketmq.remoting.client.connect.timeout=${Math.max(1000, t.requestTimeoutMs)}`
    )
  }
  if (plan.lane === 'java-dr') {
    const t = { ...DR_JVM_DEFAULTS, ...plan.tuning }
    props.push(
      // RebalanceService.waitInterval (stock 20 s), JVM-wide: the extension's consumers rebalance as ours do.
      `-Drocketmq.client.rebalance.waitInterval=${t.rebalanceIntervalMs}`,
      // A new connection waits this long whatever the request's timeout (stock 3 s): the extension's
      // 1 s cap per attempt then holds for connects too, as docs/java-client.md asks of applications.
      `-Dcom.rocketmq.remoting.client.connect.timeout=${DR_JVM_DEFAULTS.connectTimeoutMs}`
    )
  }
  const java = [
    input.java,
    ...JAVA_WORKER_JVM,
    ...props,
    '-cp',
    [input.workerJar, javaDrJarBeside(input.workerJar), join(input.rocketmqLib, '*')].join(
      delimiter
    ),
    JAVA_WORKER_MAIN
  ]
  return {
    argv: [...(input.prefix ?? []), ...java],
    env: scrubEnv(input.env ?? process.env),
    cwd: workDir
  }
}

function pickDefined<T extends Record<string, number | undefined>>(o: T): Partial<T> {
  const out: Partial<T> = {}
  for (const [k, v] of Object.entries(o))
    if (v !== undefined) (out as Record<string, number>)[k] = v
  return out
}
