import { describe, expect, it } from 'vitest'
import { ClassArchives, defaultArchiveDir } from './class-archives'
import { brokerCommand, controllerCommand, namesrvCommand, proxyCommand } from './jvm'

const DIR = '/repo/.rocketmq/class-archives'

describe('class-data archives', () => {
  it('reads the archive of a JVM’s kind when it exists, and nothing when it does not', () => {
    const present = new Set([`${DIR}/broker.jsa`])
    const archives = new ClassArchives({ dir: DIR, exists: (f) => present.has(f) })
    expect(archives.flags('broker', '/run/b1')).toEqual([`-XX:SharedArchiveFile=${DIR}/broker.jsa`])
    expect(archives.flags('broker', '/run/b2')).toEqual([`-XX:SharedArchiveFile=${DIR}/broker.jsa`])
    expect(archives.flags('nameserver', '/run/ns')).toEqual([])
  })

  it('writing, one JVM per kind dumps its classes at exit, however often its command is built', () => {
    const made: string[] = []
    const archives = new ClassArchives({
      dir: DIR,
      write: true,
      exists: () => true,
      makeDir: (d) => made.push(d)
    })
    const dump = [`-XX:ArchiveClassesAtExit=${DIR}/broker.jsa`]
    expect(archives.flags('broker', '/run/b1')).toEqual(dump)
    expect(archives.flags('broker', '/run/b2')).toEqual([])
    expect(archives.flags('broker', '/run/b1')).toEqual(dump)
    expect(archives.flags('nameserver-controller', '/run/ns')).toEqual([
      `-XX:ArchiveClassesAtExit=${DIR}/nameserver-controller.jsa`
    ])
    expect(made).toEqual([DIR])
  })

  it('is off without a folder, and by default only for the repo’s own jars', () => {
    expect(new ClassArchives({ dir: null, write: true }).flags('proxy', '/run/p')).toEqual([])
    expect(
      defaultArchiveDir({ dir: '/repo/.rocketmq/lib', version: '5.3.3', source: 'repo' })
    ).toBe(DIR)
    // Someone else's RocketMQ home: its folder is not ours to write into.
    expect(
      defaultArchiveDir({ dir: '/opt/rocketmq/lib', version: '5.3.3', source: 'ROCKETMQ_HOME' })
    ).toBeNull()
  })

  it('each command asks for its own kind, before the classpath', () => {
    const asked: string[] = []
    const ctx = {
      java: '/usr/bin/java',
      lib: '/repo/.rocketmq/lib',
      archive: (kind: string, nodeDir: string) => {
        asked.push(`${kind} ${nodeDir}`)
        return [`-XX:SharedArchiveFile=${DIR}/${kind}.jsa`]
      }
    }
    const commands = [
      namesrvCommand(ctx, '/run/ns-1', 'ns.properties'),
      namesrvCommand(ctx, '/run/ns-2', 'ns.properties', true),
      controllerCommand(ctx, '/run/c', 'c.properties'),
      brokerCommand(ctx, '/run/b', 'broker.conf', 'room1'),
      proxyCommand(ctx, '/run/p', 'proxy.json')
    ]
    expect(asked).toEqual([
      'nameserver /run/ns-1',
      'nameserver-controller /run/ns-2',
      'controller /run/c',
      'broker /run/b',
      'proxy /run/p'
    ])
    for (const c of commands) {
      const at = c.args.findIndex((a) => a.startsWith('-XX:SharedArchiveFile='))
      expect(at).toBeGreaterThan(-1)
      expect(at).toBeLessThan(c.args.indexOf('-cp'))
    }
  })
})
