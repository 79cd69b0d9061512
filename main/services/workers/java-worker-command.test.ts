import { delimiter, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JavaWorkerPlan } from './java-worker-command'
import {
  addressServerFor,
  addressServerOf,
  JAVA_WORKER_MAIN,
  javaWorkerCommand,
  javaWorkerJar,
  planJavaWorkers
} from './java-worker-command'
import type { ClientLane } from '../../../common/topology/lanes'
import type { ClientSpec } from '../worker-wire/protocol'

const MGMT = [
  { id: 'mgmt-1', room: 'room1', url: 'http://198.18.1.4:8080' },
  { id: 'mgmt-2', room: 'room2', url: 'http://198.18.2.4:8080/' }
]

function spec(
  id: string,
  room: string,
  lane: ClientLane,
  extra: Partial<ClientSpec> = {}
): ClientSpec {
  return {
    id,
    role: id.startsWith('p') ? 'producer' : 'consumer',
    room,
    lane,
    topic: 't',
    group: 'g',
    roomOrder: ['room1', 'room2'],
    managementNodes: MGMT,
    nameServers: [],
    tag: 'dr',
    tuning: {},
    brokerRooms: { 'broker-a': 'room1', 'broker-b': 'room2' },
    ...extra
  }
}

const plan = (over: Partial<JavaWorkerPlan> = {}): JavaWorkerPlan => ({
  workerId: 'java-room1-java',
  room: 'room1',
  lane: 'java',
  addressServer: '198.18.1.4:8080',
  tuning: {},
  clients: [],
  ...over
})

const command = (p: JavaWorkerPlan, env: NodeJS.ProcessEnv = {}, prefix?: string[]) =>
  javaWorkerCommand({
    java: '/jdk/bin/java',
    rocketmqLib: '/app/.rocketmq/lib',
    workerJar: '/app/.rocketmq/java-worker/drstudio-java-worker.jar',
    plan: p,
    workDir: '/run/java-room1-java',
    env,
    ...(prefix ? { prefix } : {})
  })

const props = (argv: string[]): string[] => argv.filter((a) => a.startsWith('-D'))

describe('addressServerOf', () => {
  it('turns a management URL into the host:port rocketmq.namesrv.domain takes', () => {
    expect(addressServerOf('http://198.18.1.4:8080')).toBe('198.18.1.4:8080')
    expect(addressServerOf('http://127.0.0.1:4321/v1/x?y')).toBe('127.0.0.1:4321')
  })

  it('refuses something that is not a URL, quoting it', () => {
    expect(() => addressServerOf('198.18.1.4:8080')).toThrow(/"198\.18\.1\.4:8080" is not http/)
  })

  it("uses the client's own room's management node, wherever it is listed", () => {
    expect(addressServerFor(spec('p', 'room2', 'java'))).toBe('198.18.2.4:8080')
    expect(addressServerFor(spec('p', 'room1', 'java', { managementNodes: [] }))).toBeNull()
  })
})

describe('planJavaWorkers', () => {
  it('puts each (room, lane) in its own JVM and leaves the other lanes alone', () => {
    const plans = planJavaWorkers([
      spec('p1', 'room1', 'java'),
      spec('c1', 'room1', 'java'),
      spec('p1z', 'room1', 'java-zone'),
      spec('p2', 'room2', 'java'),
      spec('r1', 'room1', 'remoting'),
      spec('g1', 'room1', 'grpc')
    ])
    expect(
      plans.map((p) => [p.workerId, p.room, p.lane, p.addressServer, p.clients.map((c) => c.id)])
    ).toEqual([
      ['java-room1-java', 'room1', 'java', '198.18.1.4:8080', ['p1', 'c1']],
      ['java-room1-java-zone', 'room1', 'java-zone', '198.18.1.4:8080', ['p1z']],
      ['java-room2-java', 'room2', 'java', '198.18.2.4:8080', ['p2']]
    ])
  })

  it('keeps JVM-wide tuning for java-tuned and java-dr only', () => {
    const tuning = { requestTimeoutMs: 400, rebalanceIntervalMs: 3000, sendTimeoutMs: 3000 }
    const [stock, tuned, dr] = planJavaWorkers([
      spec('p1', 'room1', 'java', { tuning }),
      spec('p2', 'room1', 'java-tuned', { tuning }),
      spec('p3', 'room1', 'java-dr', { tuning })
    ])
    expect(stock!.tuning).toEqual({})
    expect(tuned!.tuning).toEqual({ requestTimeoutMs: 400, rebalanceIntervalMs: 3000 })
    // The extension's request timeout is per client; only the rebalance interval is JVM-wide.
    expect(dr!.tuning).toEqual({ rebalanceIntervalMs: 3000 })
  })

  it('refuses two clients of one JVM that need different address servers, naming both', () => {
    expect(() =>
      planJavaWorkers([
        spec('p1', 'room1', 'java'),
        spec('c1', 'room1', 'java', { managementNodes: [] })
      ])
    ).toThrow(
      /clients p1 and c1 \(room room1, lane java\) use different address servers \(198\.18\.1\.4:8080 vs none\)/
    )
  })

  it('refuses java-tuned clients of one room with different JVM-wide tuning', () => {
    expect(() =>
      planJavaWorkers([
        spec('p1', 'room1', 'java-tuned', { tuning: { requestTimeoutMs: 400 } }),
        spec('c1', 'room1', 'java-tuned', { tuning: { requestTimeoutMs: 800 } })
      ])
    ).toThrow(/java-tuned clients p1 and c1 in room room1 differ/)
    expect(() =>
      planJavaWorkers([
        spec('p1', 'room1', 'java-dr', { tuning: { rebalanceIntervalMs: 1000 } }),
        spec('c1', 'room1', 'java-dr', { tuning: { rebalanceIntervalMs: 2000 } })
      ])
    ).toThrow(
      /java-dr clients p1 and c1 in room room1 differ in rebalanceIntervalMs, which is JVM-wide/
    )
  })
})

describe('javaWorkerCommand', () => {
  it('java: the room management node as address server, no zone, small JVM, worker jar first', () => {
    const cmd = command(plan())
    expect(cmd.argv[0]).toBe('/jdk/bin/java')
    expect(cmd.argv).toEqual(
      expect.arrayContaining(['-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'])
    )
    expect(cmd.argv).toContain('-XX:+DisplayVMOutputToStderr')
    expect(props(cmd.argv)).toEqual(
      expect.arrayContaining([
        '-Ddrstudio.lane=java',
        '-Ddrstudio.room=room1',
        '-Ddrstudio.workerId=java-room1-java',
        '-Drocketmq.namesrv.domain=198.18.1.4:8080',
        '-Drocketmq.namesrv.domain.subgroup=nsaddr',
        '-Duser.home=/run/java-room1-java',
        `-Drocketmq.log.root=${join('/run/java-room1-java', 'logs')}`,
        '-Drmq.logback.configurationFile=rmq.client.logback.xml'
      ])
    )
    expect(props(cmd.argv).some((p) => /rocketmq\.zone|rebalance|connect\.timeout/.test(p))).toBe(
      false
    )
    const cp = cmd.argv[cmd.argv.indexOf('-cp') + 1]
    expect(cp).toBe(
      [
        '/app/.rocketmq/java-worker/drstudio-java-worker.jar',
        '/app/.rocketmq/java-worker/drstudio-rocketmq-dr.jar',
        join('/app/.rocketmq/lib', '*')
      ].join(delimiter)
    )
    expect(cmd.argv.at(-1)).toBe(JAVA_WORKER_MAIN)
    expect(cmd.cwd).toBe('/run/java-room1-java')
  })

  it('java-zone: zone mode for its room', () => {
    const cmd = command(
      plan({ workerId: 'java-room2-java-zone', room: 'room2', lane: 'java-zone' })
    )
    expect(props(cmd.argv)).toEqual(
      expect.arrayContaining(['-Drocketmq.zone=room2', '-Drocketmq.zone.mode=true'])
    )
  })

  it('java-tuned: faster rebalance and connect timeout, defaults and the floor of 1 s', () => {
    expect(props(command(plan({ lane: 'java-tuned' })).argv)).toEqual(
      expect.arrayContaining([
        '-Drocketmq.client.rebalance.waitInterval=2000',
        '-Dcom.rocketmq.remoting.client.connect.timeout=1000'
      ])
    )
    const tuned = props(
      command(
        plan({ lane: 'java-tuned', tuning: { requestTimeoutMs: 400, rebalanceIntervalMs: 5000 } })
      ).argv
    )
    expect(tuned).toContain('-Drocketmq.client.rebalance.waitInterval=5000')
    expect(tuned).toContain('-Dcom.rocketmq.remoting.client.connect.timeout=1000')
    expect(
      props(command(plan({ lane: 'java-tuned', tuning: { requestTimeoutMs: 2500 } })).argv)
    ).toContain('-Dcom.rocketmq.remoting.client.connect.timeout=2500')
  })

  it('java-dr: our consumer’s 1 s rebalance unless tuned, a 1 s connect timeout, no zone mode', () => {
    const dr = props(command(plan({ lane: 'java-dr' })).argv)
    expect(dr).toContain('-Drocketmq.client.rebalance.waitInterval=1000')
    expect(dr).toContain('-Dcom.rocketmq.remoting.client.connect.timeout=1000')
    expect(dr.some((p) => /rocketmq\.zone/.test(p))).toBe(false)
    expect(
      props(command(plan({ lane: 'java-dr', tuning: { rebalanceIntervalMs: 4000 } })).argv)
    ).toContain('-Drocketmq.client.rebalance.waitInterval=4000')
  })

  it('without a management node: no address server (the worker sets the static list per client)', () => {
    expect(
      props(command(plan({ addressServer: null })).argv).some((p) => p.includes('namesrv'))
    ).toBe(false)
  })

  it('puts the prefix first and removes variables that would re-route a client', () => {
    const cmd = command(
      plan(),
      {
        PATH: '/usr/bin',
        NAMESRV_ADDR: '10.0.0.1:9876',
        ROCKETMQ_ZONE: 'x',
        JAVA_TOOL_OPTIONS: '-Dx=y'
      },
      ['ip', 'netns', 'exec', 'drs-room1']
    )
    expect(cmd.argv.slice(0, 5)).toEqual(['ip', 'netns', 'exec', 'drs-room1', '/jdk/bin/java'])
    expect(cmd.env).toEqual({ PATH: '/usr/bin' })
  })

  it('finds the jar where the build script puts it', () => {
    expect(javaWorkerJar('/app')).toBe(
      join('/app', '.rocketmq', 'java-worker', 'drstudio-java-worker.jar')
    )
  })
})
