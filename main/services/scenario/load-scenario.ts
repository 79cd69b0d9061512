import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { Scenario } from '../../../common/scenario/schema'
import { scenarioSchema } from '../../../common/scenario/schema'
import type { Topology } from '../../../common/topology/schema'
import { readTopologyFile } from '../documents/documents'
import { checkScenario } from './plan'

/** A scenario with its topology resolved and checked, ready to run. */
export interface LoadedScenario {
  scenario: Scenario
  topology: Topology
  /** Where the scenario came from (null for text given directly). */
  file: string | null
  topologyFile: string
}

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

/** Parses scenario YAML, resolves and validates its topology, and checks its timeline selectors. */
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
  const parsed = scenarioSchema.safeParse(raw)
  if (!parsed.success) {
    throw new ScenarioFileError(
      label,
      parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    )
  }
  const scenario = parsed.data
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
      `topology "${scenario.topology}": cannot read ${topologyFile} (${(e as Error).message}); ` +
        'name a built-in topology (two-rooms, three-rooms) or a path relative to the scenario file'
    ])
  }
  if (opened.problems.length) {
    throw new ScenarioFileError(
      label,
      opened.problems.map(
        (p) => `topology ${topologyFile} ${p.path}: ${p.message} (fix: ${p.hint})`
      )
    )
  }
  const topology = opened.document as Topology
  const problems = checkScenario(scenario, topology)
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
