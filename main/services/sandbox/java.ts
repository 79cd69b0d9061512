import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { JavaMissingError } from './errors'

/** The JDK the sandbox runs every RocketMQ JVM with. */
export interface JavaInfo {
  /** Absolute path of the java executable when it could be resolved, else the bare command. */
  path: string
  /** Version string as `java -version` prints it, e.g. `17.0.15`. */
  version: string
  major: number
  /** Where it came from, for error messages and the settings page. */
  source: 'settings' | 'JAVA_HOME' | 'PATH'
}

/** Runs a command to completion; injected so tests never need a JDK. */
export type RunSync = (
  command: string,
  args: string[]
) => { status: number | null; stdout: string; stderr: string; error?: Error }

export interface FindJavaOptions {
  env?: NodeJS.ProcessEnv
  /** Settings override; wins over JAVA_HOME and PATH. */
  javaHome?: string
  run?: RunSync
  isExecutable?: (path: string) => boolean
  platform?: NodeJS.Platform
}

/** The oldest JDK RocketMQ 5.3 runs on in the sandbox (add-opens flags, ZGC-free defaults). */
export const MIN_JAVA_MAJOR = 17

const FIX =
  'Install a JDK 17 or newer (e.g. `apt-get install openjdk-17-jdk`, `brew install openjdk@17`) or set JAVA_HOME to one'

/** Reads `java -version` output; old JDKs print 1.8.0_x, new ones 17.0.2 or 21. */
export function parseJavaVersion(text: string): { version: string; major: number } | undefined {
  const m = /version "([^"]+)"/.exec(text)
  if (!m) return undefined
  const version = m[1]!
  const parts = version.split(/[.+_-]/)
  const first = Number(parts[0])
  if (!Number.isInteger(first)) return undefined
  const major = first === 1 ? Number(parts[1]) : first
  if (!Number.isInteger(major)) return undefined
  return { version, major }
}

const defaultRun: RunSync = (command, args) => {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 20_000 })
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', error: r.error }
}

const defaultIsExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Finds java on PATH the way a shell would, so command lines show an absolute path. */
export function whichOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  isExecutable: (path: string) => boolean
): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name)
  }
  return undefined
}

/** Locates and version-checks java: settings override, then JAVA_HOME, then PATH. */
export function findJava(options: FindJavaOptions = {}): JavaInfo {
  const env = options.env ?? process.env
  const run = options.run ?? defaultRun
  const isExecutable = options.isExecutable ?? defaultIsExecutable
  const exe = (options.platform ?? process.platform) === 'win32' ? 'java.exe' : 'java'

  let path: string
  let source: JavaInfo['source']
  if (options.javaHome) {
    path = join(options.javaHome, 'bin', exe)
    source = 'settings'
  } else if (env.JAVA_HOME) {
    path = join(env.JAVA_HOME, 'bin', exe)
    source = 'JAVA_HOME'
  } else {
    const found = whichOnPath(exe, env, isExecutable)
    if (!found) {
      throw new JavaMissingError(
        `Java was not found: JAVA_HOME is not set and no java is on PATH. ${FIX}.`
      )
    }
    path = found
    source = 'PATH'
  }

  const r = run(path, ['-version'])
  if (r.error || r.status !== 0) {
    const where = source === 'PATH' ? 'on PATH' : `from ${source} (${path})`
    throw new JavaMissingError(
      `Java ${where} could not be run${r.error ? `: ${r.error.message}` : ` (exit ${r.status})`}. ${FIX}.`,
      r.error
    )
  }
  const parsed = parseJavaVersion(`${r.stderr}\n${r.stdout}`)
  if (!parsed) {
    throw new JavaMissingError(
      `Could not read the version of ${path} from \`java -version\`. ${FIX}.`
    )
  }
  if (parsed.major < MIN_JAVA_MAJOR) {
    throw new JavaMissingError(
      `${path} is Java ${parsed.version}; RocketMQ in DR Studio needs Java ${MIN_JAVA_MAJOR} or newer. ${FIX}.`
    )
  }
  return { path, version: parsed.version, major: parsed.major, source }
}
