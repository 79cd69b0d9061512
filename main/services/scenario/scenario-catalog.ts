import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadScenarioFile } from './load-scenario'

/** A scenario shipped in resources/scenarios, as the Scenarios panel lists it. */
export interface ScenarioEntry {
  id: string
  name: string
  description: string
  topology: string
  path: string
}

/**
 * The built-in scenarios, read by the one scenario loader; a file that does not load is listed
 * with its problem as its description, so it does not hide the others.
 */
export function listBuiltinScenarios(resourcesDir: string): ScenarioEntry[] {
  const dir = join(resourcesDir, 'scenarios')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const path = join(dir, f)
      const id = f.replace(/\.yaml$/, '')
      try {
        const { scenario } = loadScenarioFile(path, { resourcesDir })
        const { name, description = '', topology } = scenario
        return { id, name, description, topology, path }
      } catch (e) {
        return { id, name: f, description: (e as Error).message, topology: '', path }
      }
    })
}

/** The file of a built-in scenario; the error lists the ones that exist. */
export function builtinScenarioFile(resourcesDir: string, id: string): string {
  const all = listBuiltinScenarios(resourcesDir)
  const found = all.find((s) => s.id === id)
  if (!found) {
    throw new Error(
      `no built-in scenario "${id}"; choose one of ${all.map((s) => s.id).join(', ')}`
    )
  }
  return found.path
}
