import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { RocketmqMissingError } from './errors'

/** Where the RocketMQ jars were found, and which version they are. */
export interface RocketmqLib {
  /** Folder holding the jars; the JVM classpath is `<dir>/*`. */
  dir: string
  version: string
  source: 'settings' | 'ROCKETMQ_HOME' | 'repo'
}

export interface LocateRocketmqOptions {
  /** Repository (or packaged app resources) root holding `.rocketmq/lib`. */
  repoRoot: string
  env?: NodeJS.ProcessEnv
  /** Settings override: a RocketMQ home (with lib/) or a lib folder itself. */
  override?: string
  listDir?: (dir: string) => string[] | undefined
}

/** Jars every sandbox JVM needs; their absence means an incomplete download. */
const REQUIRED = ['rocketmq-namesrv', 'rocketmq-broker', 'rocketmq-tools'] as const

const defaultListDir = (dir: string): string[] | undefined => {
  if (!existsSync(dir)) return undefined
  try {
    return readdirSync(dir)
  } catch {
    return undefined
  }
}

/** Checks one candidate folder; returns the version or the names of the missing jars. */
export function inspectLib(files: string[]): { version: string } | { missing: string[] } {
  const missing: string[] = []
  let version: string | undefined
  for (const artifact of REQUIRED) {
    const re = new RegExp(`^${artifact}-(\\d[^/]*)\\.jar$`)
    const hit = files.map((f) => re.exec(f)).find((m) => m !== null)
    if (!hit) missing.push(artifact)
    else version ??= hit[1]
  }
  return missing.length > 0 || !version ? { missing } : { version }
}

/** Finds the jars: settings override, then ROCKETMQ_HOME/lib, then `<repo>/.rocketmq/lib`. */
export function locateRocketmqLib(options: LocateRocketmqOptions): RocketmqLib {
  const env = options.env ?? process.env
  const listDir = options.listDir ?? defaultListDir
  const candidate: { dirs: string[]; source: RocketmqLib['source']; label: string } =
    options.override
      ? {
          dirs: [join(options.override, 'lib'), options.override],
          source: 'settings',
          label: `the RocketMQ folder set in settings (${options.override})`
        }
      : env.ROCKETMQ_HOME
        ? {
            dirs: [join(env.ROCKETMQ_HOME, 'lib')],
            source: 'ROCKETMQ_HOME',
            label: `ROCKETMQ_HOME/lib (${join(env.ROCKETMQ_HOME, 'lib')})`
          }
        : {
            dirs: [join(options.repoRoot, '.rocketmq', 'lib')],
            source: 'repo',
            label: join(options.repoRoot, '.rocketmq', 'lib')
          }
  let problem = 'does not exist'
  for (const dir of candidate.dirs) {
    const files = listDir(dir)
    if (!files) continue
    const result = inspectLib(files)
    if ('version' in result) return { dir, version: result.version, source: candidate.source }
    problem = `is missing ${result.missing.map((m) => `${m}-*.jar`).join(', ')}`
  }
  const fix =
    candidate.source === 'repo'
      ? 'Run `npm run setup` to download RocketMQ 5.3.3 (needs Maven and a JDK 17)'
      : candidate.source === 'ROCKETMQ_HOME'
        ? 'Point ROCKETMQ_HOME at an unpacked RocketMQ 5.x binary distribution, or unset it and run `npm run setup`'
        : 'Fix the RocketMQ folder in settings, or clear it and run `npm run setup`'
  throw new RocketmqMissingError(`RocketMQ jars not found: ${candidate.label} ${problem}. ${fix}.`)
}
