import { describe, expect, it } from 'vitest'
import {
  brokerCommand,
  controllerCommand,
  formatCommand,
  namesrvCommand,
  proxyCommand,
  scrubEnv
} from './jvm'

const ctx = { java: '/usr/bin/java', lib: '/repo/.rocketmq/lib' }

describe('command lines', () => {
  it('starts a name server with a small heap and its own user.home', () => {
    const c = namesrvCommand(ctx, '/run/ns-1', '/run/ns-1/namesrv.properties')
    expect(c.args).toEqual(
      expect.arrayContaining(['-Xms64m', '-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'])
    )
    expect(c.args).toContain('-Duser.home=/run/ns-1')
    expect(c.args).toContain('-Drocketmq.home.dir=/run/ns-1')
    expect(c.args).toContain('-Drmq.logback.configurationFile=rmq.namesrv.logback.xml')
    expect(c.args.slice(-3)).toEqual([
      'org.apache.rocketmq.namesrv.NamesrvStartup',
      '-c',
      '/run/ns-1/namesrv.properties'
    ])
    expect(c.args[c.args.indexOf('-cp') + 1]).toBe('/repo/.rocketmq/lib/*')
  })

  it('starts a broker in its room with add-opens for JDK 17', () => {
    const c = brokerCommand(ctx, '/run/b', '/run/b/broker.conf', 'room1')
    expect(c.env).toEqual({ ROCKETMQ_ZONE: 'room1' })
    expect(c.args).toEqual(
      expect.arrayContaining(['-Xms256m', '-Xmx256m', '-XX:MaxDirectMemorySize=1g', '--add-opens'])
    )
    expect(c.args).toContain('java.base/sun.nio.ch=ALL-UNNAMED')
    expect(c.args.at(-3)).toBe('org.apache.rocketmq.broker.BrokerStartup')
  })

  it('starts a zone-pinned proxy with its room and zone mode, a plain one without a zone', () => {
    const pinned = proxyCommand(ctx, '/run/p', '/run/p/rmq-proxy.json', 'room2')
    expect(pinned.env).toEqual({ ROCKETMQ_ZONE: 'room2', ROCKETMQ_ZONE_MODE: 'true' })
    expect(pinned.args).toEqual(
      expect.arrayContaining([
        '-Xms128m',
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1'
      ])
    )
    expect(pinned.args.slice(-5)).toEqual([
      'org.apache.rocketmq.proxy.ProxyStartup',
      '-pc',
      '/run/p/rmq-proxy.json',
      '-pm',
      'cluster'
    ])
    expect(pinned.args).toContain('-Dtls.server.mode=disabled')
    expect(proxyCommand(ctx, '/run/p', '/run/p/rmq-proxy.json').env).toEqual({})
  })

  it('starts every server JVM without TLS (plaintext clients only) unless permissive is asked for', () => {
    const all = (c: typeof ctx & { serverTls?: 'disabled' | 'permissive' }) => [
      namesrvCommand(c, '/run/ns', '/run/ns/namesrv.properties'),
      namesrvCommand(c, '/run/ns', '/run/ns/namesrv.properties', true),
      controllerCommand(c, '/run/c', '/run/c/controller.properties'),
      brokerCommand(c, '/run/b', '/run/b/broker.conf', 'room1'),
      proxyCommand(c, '/run/p', '/run/p/rmq-proxy.json', 'room1')
    ]
    const tls = (args: string[]) => args.filter((a) => a.startsWith('-Dtls.server.mode='))
    for (const c of all(ctx)) expect(tls(c.args)).toEqual(['-Dtls.server.mode=disabled'])
    for (const c of all({ ...ctx, serverTls: 'permissive' }))
      expect(tls(c.args)).toEqual(['-Dtls.server.mode=permissive'])
  })

  it('renders a copy-pasteable shell line', () => {
    expect(
      formatCommand({ command: '/usr/bin/java', args: ['-cp', '/a b/*'], env: { Z: 'r 1' } })
    ).toBe("Z='r 1' /usr/bin/java -cp '/a b/*'")
  })

  it('drops variables that would re-route a sandbox JVM', () => {
    expect(
      scrubEnv({ PATH: '/bin', NAMESRV_ADDR: 'x:1', ROCKETMQ_HOME: '/h', HOME: '/root' })
    ).toEqual({
      PATH: '/bin',
      HOME: '/root'
    })
  })
})
