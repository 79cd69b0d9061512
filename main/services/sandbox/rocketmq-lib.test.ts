import { describe, expect, it } from 'vitest'
import { RocketmqMissingError } from './errors'
import { locateRocketmqLib } from './rocketmq-lib'

const jars = [
  'rocketmq-namesrv-5.3.3.jar',
  'rocketmq-broker-5.3.3.jar',
  'rocketmq-tools-5.3.3.jar',
  'netty-all.jar'
]

describe('locateRocketmqLib', () => {
  const fs = (dirs: Record<string, string[]>) => (dir: string) => dirs[dir]

  it('uses <repo>/.rocketmq/lib by default', () => {
    expect(
      locateRocketmqLib({
        repoRoot: '/repo',
        env: {},
        listDir: fs({ '/repo/.rocketmq/lib': jars })
      })
    ).toEqual({ dir: '/repo/.rocketmq/lib', version: '5.3.3', source: 'repo' })
  })

  it('uses ROCKETMQ_HOME/lib, and a settings override before that', () => {
    const listDir = fs({ '/rmq/lib': jars, '/custom/lib': jars })
    expect(
      locateRocketmqLib({ repoRoot: '/repo', env: { ROCKETMQ_HOME: '/rmq' }, listDir }).dir
    ).toBe('/rmq/lib')
    expect(
      locateRocketmqLib({
        repoRoot: '/repo',
        env: { ROCKETMQ_HOME: '/rmq' },
        override: '/custom',
        listDir
      })
    ).toMatchObject({ dir: '/custom/lib', source: 'settings' })
  })

  it('tells the user to run npm run setup when the jars are missing', () => {
    expect(() =>
      locateRocketmqLib({ repoRoot: '/repo', env: {}, listDir: () => undefined })
    ).toThrow(RocketmqMissingError)
    expect(() =>
      locateRocketmqLib({ repoRoot: '/repo', env: {}, listDir: () => undefined })
    ).toThrow(/\/repo\/\.rocketmq\/lib does not exist\. Run `npm run setup`/)
    expect(() =>
      locateRocketmqLib({
        repoRoot: '/repo',
        env: {},
        listDir: () => ['rocketmq-namesrv-5.3.3.jar']
      })
    ).toThrow(/is missing rocketmq-broker-\*\.jar, rocketmq-tools-\*\.jar/)
  })
})
