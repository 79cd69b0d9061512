import { join } from 'node:path'
import type { DialogPort } from './engine'
import { Engine } from './engine'
import type { AppPaths } from './app-paths'
import { defaultDataDir, openDatabase, Recorder } from './recorder'

/** Composition root shared by the Electron shell, the browser shell and the CLI. */
export function createEngine(opts: {
  shell: 'electron' | 'browser'
  paths: AppPaths
  dataDir?: string
  dialogs?: DialogPort
}): Engine {
  const dataDir = opts.dataDir ?? defaultDataDir()
  const recorder = new Recorder(openDatabase(join(dataDir, 'drstudio.db')))
  recorder.closeInterruptedRuns()
  return new Engine({
    shell: opts.shell,
    version: opts.paths.version,
    dataDir,
    resourcesDir: opts.paths.resourcesDir,
    recorder,
    dialogs: opts.dialogs
  })
}
