import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface AppPaths {
  root: string
  resourcesDir: string
  rendererDir: string
  version: string
}

/** Finds the app root (the folder with our package.json) from source, the built CLI or a packaged app. */
export function findAppPaths(from: string = dirname(fileURLToPath(import.meta.url))): AppPaths {
  let dir = resolve(from)
  for (;;) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg)) {
      const json = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string }
      if (json.name === 'rocketmq-dr-studio') {
        return {
          root: dir,
          resourcesDir: join(dir, 'resources'),
          rendererDir: join(dir, 'out', 'renderer'),
          version: json.version ?? '0.0.0'
        }
      }
    }
    const parent = dirname(dir)
    if (parent === dir) {
      throw new Error(`cannot find the DR Studio install folder above ${from}; reinstall the app`)
    }
    dir = parent
  }
}

/** How to start a Node child from this process: its executable plus the environment it needs. */
export interface NodeRuntimeCommand {
  command: string
  env: Record<string, string>
}

/**
 * The Node runtime for child processes (management nodes, room workers). Under Electron
 * `process.execPath` is the Electron binary, which starts a second app unless
 * ELECTRON_RUN_AS_NODE=1 makes it behave as plain Node; under Node it is Node itself.
 */
export function nodeRuntimeCommand(
  proc: Pick<NodeJS.Process, 'execPath' | 'versions'> = process
): NodeRuntimeCommand {
  return {
    command: proc.execPath,
    env: proc.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}
  }
}
