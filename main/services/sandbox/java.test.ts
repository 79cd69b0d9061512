import { describe, expect, it } from 'vitest'
import { JavaMissingError } from './errors'
import type { RunSync } from './java'
import { findJava, parseJavaVersion } from './java'

const out17 = 'openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment (build 17.0.15+6)'

describe('parseJavaVersion', () => {
  it('reads modern and legacy version strings', () => {
    expect(parseJavaVersion(out17)).toEqual({ version: '17.0.15', major: 17 })
    expect(parseJavaVersion('java version "1.8.0_392"')).toEqual({ version: '1.8.0_392', major: 8 })
    expect(parseJavaVersion('openjdk version "21" 2023-09-19')).toEqual({
      version: '21',
      major: 21
    })
    expect(parseJavaVersion('openjdk version "22-ea" 2024-03-19')).toEqual({
      version: '22-ea',
      major: 22
    })
    expect(parseJavaVersion('nonsense')).toBeUndefined()
  })
})

describe('findJava', () => {
  const run =
    (stderr: string, status = 0): RunSync =>
    () => ({ status, stdout: '', stderr })

  it('prefers the settings override, then JAVA_HOME, then PATH', () => {
    const env = { JAVA_HOME: '/jdk', PATH: '/usr/bin' }
    const isExecutable = (p: string): boolean => p === '/usr/bin/java'
    expect(
      findJava({ env, javaHome: '/opt/jdk', run: run(out17), platform: 'linux' })
    ).toMatchObject({
      path: '/opt/jdk/bin/java',
      source: 'settings',
      major: 17
    })
    expect(findJava({ env, run: run(out17), platform: 'linux' }).path).toBe('/jdk/bin/java')
    expect(
      findJava({ env: { PATH: '/usr/bin' }, run: run(out17), isExecutable, platform: 'linux' })
    ).toMatchObject({
      path: '/usr/bin/java',
      source: 'PATH'
    })
  })

  it('names the fix when java is missing', () => {
    expect(() =>
      findJava({ env: { PATH: '/nowhere' }, isExecutable: () => false, platform: 'linux' })
    ).toThrow(JavaMissingError)
    expect(() =>
      findJava({ env: { PATH: '/nowhere' }, isExecutable: () => false, platform: 'linux' })
    ).toThrow(/Install a JDK 17 .* or set JAVA_HOME/)
  })

  it('rejects Java 11 and unrunnable binaries', () => {
    expect(() =>
      findJava({ env: { JAVA_HOME: '/jdk11' }, run: run('openjdk version "11.0.2"') })
    ).toThrow(/Java 11\.0\.2; RocketMQ in DR Studio needs Java 17/)
    expect(() =>
      findJava({
        env: { JAVA_HOME: '/broken' },
        run: () => ({ status: null, stdout: '', stderr: '', error: new Error('ENOENT') })
      })
    ).toThrow(/from JAVA_HOME \(\/broken\/bin\/java\) could not be run: ENOENT/)
  })
})
