import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { javaWorkerJar } from './java-worker-command'
import type { ClientSpec } from '../worker-wire/protocol'
import { localJavaWorkers, roomWorkerEntry } from './worker-launcher'

const spec = (over: Partial<ClientSpec> = {}): ClientSpec => ({
  id: 'producer-1-java-zone',
  role: 'producer',
  room: 'room1',
  lane: 'java-zone',
  topic: 't',
  group: 'g',
  roomOrder: ['room1', 'room2'],
  managementNodes: [
    { id: 'mgmt-1', room: 'room1', url: 'http://198.18.1.4:8080' },
    { id: 'mgmt-2', room: 'room2', url: 'http://198.18.2.4:8080' }
  ],
  nameServers: [],
  tag: 'dr',
  tuning: {},
  brokerRooms: { 'broker-a': 'room1' },
  ...over
})

describe('localJavaWorkers', () => {
  const made: string[] = []
  const java = (exists: boolean) =>
    localJavaWorkers({
      root: '/app',
      logDir: () => '/runs/7',
      lookup: {
        java: () => '/jdk/bin/java',
        rocketmqLib: () => '/app/.rocketmq/lib',
        exists: (p) => exists && p === javaWorkerJar('/app'),
        mkdir: (p) => void made.push(p)
      }
    })

  it('runs the jar with the pinned RocketMQ jars, one folder per room and lane in the run folder', () => {
    const cmd = java(true)({ room: 'room1', lane: 'java-zone' }, spec())
    const workDir = join('/runs/7', 'workers', 'java-room1-java-zone')
    expect(made).toContain(workDir)
    expect(cmd.cwd).toBe(workDir)
    expect(cmd.argv[0]).toBe('/jdk/bin/java')
    expect(cmd.argv).toEqual(
      expect.arrayContaining([
        '-Ddrstudio.lane=java-zone',
        '-Ddrstudio.room=room1',
        '-Drocketmq.namesrv.domain=198.18.1.4:8080',
        '-Drocketmq.zone=room1'
      ])
    )
    expect(cmd.argv.join(' ')).toContain(javaWorkerJar('/app'))
  })

  it('names npm run setup when the worker jar was never built', () => {
    expect(() => java(false)({ room: 'room2', lane: 'java' }, spec({ lane: 'java' }))).toThrow(
      /java-worker-room2: the Java client worker is not built \(.*drstudio-java-worker\.jar is missing\); run `npm run setup`/
    )
  })
})

describe('roomWorkerEntry', () => {
  const root = join(import.meta.dirname, '..', '..', '..')

  it('runs the room worker source through tsx, from a file that exists', () => {
    const entry = roomWorkerEntry(root, { preferBuilt: false })
    expect(entry.args.slice(0, 2)).toEqual(['--import', 'tsx'])
    expect(entry.args[2]).toBe(join(root, 'main', 'services', 'room-worker', 'room-worker-main.ts'))
    expect(existsSync(entry.args[2]!)).toBe(true)
  })

  it('runs `drstudio worker` from the built CLI when asked and built', () => {
    const cli = join(root, 'out', 'cli', 'drstudio.mjs')
    const entry = roomWorkerEntry(root, { preferBuilt: true })
    expect(entry.args).toEqual(existsSync(cli) ? [cli, 'worker'] : expect.arrayContaining(['tsx']))
  })
})
