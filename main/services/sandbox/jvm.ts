import { join } from 'node:path'
import type { ArchiveKind } from './class-archives'

/** A process to start: what the spawner port receives. */
export interface CommandSpec {
  command: string
  args: string[]
  /** Variables to set on top of the scrubbed parent environment. */
  env: Record<string, string>
  cwd: string
}

/** Where the JVMs come from; shared by every command builder. */
export interface JvmContext {
  java: string
  /** Folder holding the RocketMQ jars. */
  lib: string
  /** Class-data archive flags for a JVM of this kind (see class-archives.ts); none when absent. */
  archive?: (kind: ArchiveKind, nodeDir: string) => string[]
  /** RocketMQ's server TLS mode; the sandbox's default is `disabled` (see ServerTls). */
  serverTls?: ServerTls
}

/**
 * `disabled`: plaintext only, what every sandbox client speaks (remoting, gRPC). RocketMQ's default,
 * `permissive`, loads OpenSSL and builds a self-signed TLS context per server at boot (a broker has
 * two): 3-4 s of CPU per JVM, measured in a broker's remoting.log, on a 2-core host booting several.
 */
export type ServerTls = 'disabled' | 'permissive'

/** Small heaps and a fast-starting JIT: the sandbox runs many JVMs on a laptop. */
export const NAMESRV_HEAP = ['-Xms64m', '-Xmx128m']
/** A controller (standalone, or the name server that embeds one) holds DLedger state as well. */
export const CONTROLLER_HEAP = ['-Xms64m', '-Xmx160m']
/**
 * A broker's direct memory is a cap, not a reservation: every thread that writes to the commit log
 * (sends, ends of transactions, the check-back, POP's checkpoints, the timer) holds its own encoder
 * buffer of maxMessageSize + 64 KB (4.06 MB). At 256 MB a broker with POP, the timer and
 * transactions ran out (OutOfMemoryError in its transaction check and POP revive: check-backs
 * stopped and POP receives timed out); about 60 such threads fit.
 */
export const BROKER_HEAP = ['-Xms256m', '-Xmx256m', '-XX:MaxDirectMemorySize=1g']
export const PROXY_HEAP = ['-Xms128m', '-Xmx256m', '-XX:MaxDirectMemorySize=128m']
export const ADMIN_HEAP = ['-Xms32m', '-Xmx128m']
const LEAN = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData']

/** JDK 17 strong encapsulation: what RocketMQ's store and hessian paths reach into. */
export const ADD_OPENS = [
  '--add-exports',
  'java.base/sun.nio.ch=ALL-UNNAMED',
  '--add-opens',
  'java.base/java.nio=ALL-UNNAMED',
  '--add-opens',
  'java.base/java.lang=ALL-UNNAMED'
]

/** Logback's status dump (triggered by a deprecation warning in RocketMQ's XML) would bury the boot line. */
const QUIET_LOGBACK =
  '-Dlogback.statusListenerClass=org.apache.rocketmq.logging.ch.qos.logback.core.status.NopStatusListener'

/** Main classes of the shipped launchers (mqnamesrv, mqbroker, mqproxy, mqadmin). */
export const MAIN_CLASS = {
  nameserver: 'org.apache.rocketmq.namesrv.NamesrvStartup',
  broker: 'org.apache.rocketmq.broker.BrokerStartup',
  controller: 'org.apache.rocketmq.controller.ControllerStartup',
  proxy: 'org.apache.rocketmq.proxy.ProxyStartup',
  admin: 'org.apache.rocketmq.tools.command.MQAdminStartup'
} as const

/** Environment variables a developer shell may carry that would silently re-route a sandbox JVM. */
export const SCRUBBED_ENV = [
  'NAMESRV_ADDR',
  'ROCKETMQ_ZONE',
  'ROCKETMQ_ZONE_MODE',
  'ROCKETMQ_HOME',
  'RMQ_PROXY_HOME',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS'
]

/** A copy of `env` without the variables in SCRUBBED_ENV. */
export function scrubEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !SCRUBBED_ENV.includes(k)) out[k] = v
  }
  return out
}

/**
 * `user.home` is the node dir, so ~/logs/rocketmqlogs and every default store path land there;
 * `rocketmq.home.dir` only has to be non-null (nothing is read from it with Maven jars).
 */
function common(
  ctx: JvmContext,
  nodeDir: string,
  logbackXml: string,
  archive?: ArchiveKind
): string[] {
  return [
    ...LEAN,
    ...(archive ? (ctx.archive?.(archive, nodeDir) ?? []) : []),
    `-Dtls.server.mode=${ctx.serverTls ?? 'disabled'}`,
    `-Drocketmq.home.dir=${nodeDir}`,
    `-Duser.home=${nodeDir}`,
    `-Drmq.logback.configurationFile=${logbackXml}`,
    QUIET_LOGBACK,
    '-cp',
    join(ctx.lib, '*')
  ]
}

/**
 * `java ... NamesrvStartup -c namesrv.properties`; with an embedded controller the JVM also runs
 * the controller, whose hessian serialisation needs the JDK 17 add-opens.
 */
export function namesrvCommand(
  ctx: JvmContext,
  nodeDir: string,
  configFile: string,
  embeddedController = false
): CommandSpec {
  return {
    command: ctx.java,
    args: [
      ...(embeddedController ? [...CONTROLLER_HEAP, ...ADD_OPENS] : NAMESRV_HEAP),
      ...common(
        ctx,
        nodeDir,
        'rmq.namesrv.logback.xml',
        embeddedController ? 'nameserver-controller' : 'nameserver'
      ),
      MAIN_CLASS.nameserver,
      '-c',
      configFile
    ],
    env: {},
    cwd: nodeDir
  }
}

/** `java ... ControllerStartup -c controller.properties` (the shipped bin/mqcontroller). */
export function controllerCommand(
  ctx: JvmContext,
  nodeDir: string,
  configFile: string
): CommandSpec {
  return {
    command: ctx.java,
    args: [
      ...CONTROLLER_HEAP,
      ...ADD_OPENS,
      ...common(ctx, nodeDir, 'rmq.controller.logback.xml', 'controller'),
      MAIN_CLASS.controller,
      '-c',
      configFile
    ],
    env: {},
    cwd: nodeDir
  }
}

/** `ROCKETMQ_ZONE=<room> java ... BrokerStartup -c broker.conf`; the zone tags the broker in routes. */
export function brokerCommand(
  ctx: JvmContext,
  nodeDir: string,
  configFile: string,
  zone: string
): CommandSpec {
  return {
    command: ctx.java,
    args: [
      ...BROKER_HEAP,
      ...ADD_OPENS,
      ...common(ctx, nodeDir, 'rmq.broker.logback.xml', 'broker'),
      MAIN_CLASS.broker,
      '-c',
      configFile
    ],
    env: { ROCKETMQ_ZONE: zone },
    cwd: nodeDir
  }
}

/**
 * `ROCKETMQ_ZONE=<room> ROCKETMQ_ZONE_MODE=true java ... ProxyStartup -pc rmq-proxy.json -pm cluster`.
 * With a zone the proxy's name-server client sends __ZONE_NAME/__ZONE_MODE on route requests, so the
 * name servers' ZoneRouteRPCHook hands it only its room's brokers; without one it sees every broker.
 */
export function proxyCommand(
  ctx: JvmContext,
  nodeDir: string,
  configFile: string,
  zone?: string
): CommandSpec {
  return {
    command: ctx.java,
    args: [
      ...PROXY_HEAP,
      ...ADD_OPENS,
      // Plaintext gRPC too: with TLS a proxy's boot took ~10 s more on a busy 2-core machine.
      ...common(ctx, nodeDir, 'rmq.proxy.logback.xml', 'proxy'),
      MAIN_CLASS.proxy,
      '-pc',
      configFile,
      '-pm',
      'cluster'
    ],
    env: zone ? { ROCKETMQ_ZONE: zone, ROCKETMQ_ZONE_MODE: 'true' } : {},
    cwd: nodeDir
  }
}

/** `java ... MQAdminStartup <args>`: RocketMQ's own admin tool, used until the remoting client lands. */
export function adminCommand(ctx: JvmContext, homeDir: string, args: string[]): CommandSpec {
  return {
    command: ctx.java,
    args: [
      ...ADMIN_HEAP,
      ...common(ctx, homeDir, 'rmq.tools.logback.xml'),
      MAIN_CLASS.admin,
      ...args
    ],
    env: {},
    cwd: homeDir
  }
}

/** Shell-quoted rendering of a command, for logs, progress events and the docs. */
export function formatCommand(spec: Pick<CommandSpec, 'command' | 'args' | 'env'>): string {
  const quote = (s: string): string =>
    /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
  const env = Object.entries(spec.env).map(([k, v]) => `${k}=${quote(v)}`)
  return [...env, quote(spec.command), ...spec.args.map(quote)].join(' ')
}
