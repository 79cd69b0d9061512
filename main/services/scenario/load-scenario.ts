import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { parseScenarioDocument } from '../../../common/scenario/issues'
import type { Topology } from '../../../common/topology/schema'
import type { LoadedScenario } from '../../../common/scenario/run-plan'

import { readTopologyFile } from '../documents/documents'
import { checkScenario, withScenarioNeeds } from '../../../common/scenario/client-plan'

/** A scenario file that cannot be run, with every problem found. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[]
  ) {
    super(`${file} is not a runnable scenario:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ScenarioFileError'
  }
}

/** The app's resources folder, found from this file (source tree, built CLI or packaged app). */
export function defaultResourcesDir(): string {
  let dir = dirname(new URL(import.meta.url).pathname)
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'resources', 'topologies'))) return join(dir, 'resources')
    dir = dirname(dir)
  }
  return resolve('resources')
}

/** Built-in topology name (`two-rooms`) or a path relative to the scenario's folder. */
export function resolveTopologyRef(ref: string, baseDir: string, resourcesDir: string): string {
  if (/^[A-Za-z][A-Za-z0-9_-]*$/.test(ref)) {
    const builtin = join(resourcesDir, 'topologies', `${ref}.json`)
    if (existsSync(builtin)) return builtin
  }
  return isAbsolute(ref) ? ref : resolve(baseDir, ref)
}

/**
 * Parses scenario YAML, resolves and validates its topology, and checks its timeline selectors.
 * Throws one ScenarioFileError with every problem found: unknown keys do not hide the topology
 * and selector problems behind them, so nothing boots before the whole file is known to be valid.
 */
export function parseScenario(
  text: string,
  opts: { file?: string; baseDir?: string; resourcesDir?: string } = {}
): LoadedScenario {
  const label = opts.file ?? '<scenario>'
  let raw: unknown
  try {
    raw = parseYaml(text)
  } catch (e) {
    throw new ScenarioFileError(label, [`YAML syntax: ${(e as Error).message}`])
  }
  const { scenario, problems } = parseScenarioDocument(raw)
  if (!scenario) throw new ScenarioFileError(label, problems)
  const baseDir = opts.baseDir ?? (opts.file ? dirname(resolve(opts.file)) : process.cwd())
  const topologyFile = resolveTopologyRef(
    scenario.topology,
    baseDir,
    opts.resourcesDir ?? defaultResourcesDir()
  )
  // The same loader as the app: encodings, duplicate keys and every validation rule.
  let opened: ReturnType<typeof readTopologyFile>
  try {
    opened = readTopologyFile(topologyFile)
  } catch (e) {
    throw new ScenarioFileError(label, [
      ...problems,
      `topology "${scenario.topology}": cannot read ${topologyFile} (${(e as Error).message}); ` +
        'name a built-in topology (two-rooms, three-rooms) or a path relative to the scenario file'
    ])
  }
  if (opened.problems.length) {
    throw new ScenarioFileError(label, [
      ...problems,
      ...opened.problems.map(
        (p) => `topology ${topologyFile} ${p.path}: ${p.message} (fix: ${p.hint})`
      )
    ])
  }
  const topology = withScenarioNeeds(scenario, opened.document as Topology)
  problems.push(...checkScenario(scenario, topology))
  if (problems.length) throw new ScenarioFileError(label, problems)
  return { scenario, topology, file: opts.file ?? null, topologyFile }
}

/** Reads and parses a scenario file. */
export function loadScenarioFile(
  file: string,
  opts: { resourcesDir?: string } = {}
): LoadedScenario {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new ScenarioFileError(file, [`cannot read the file: ${(e as Error).message}`])
  }
  return parseScenario(text, { file, ...opts })
}
