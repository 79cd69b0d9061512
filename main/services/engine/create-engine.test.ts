import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nodeRuntimeCommand } from '../app-paths'
import { managementCommandFor } from './compose'

// Management nodes (and the lead's room workers) are Node programs. Under Electron,
// process.execPath is the Electron binary: without ELECTRON_RUN_AS_NODE=1 it would start a
// second DR Studio window instead of the management node.

const electronProcess = {
  execPath: '/opt/DR Studio/drstudio-app',
  versions: { ...process.versions, electron: '45.5.0' }
}
const nodeProcess = { execPath: '/usr/bin/node', versions: { ...process.versions } }
delete (nodeProcess.versions as Record<string, string | undefined>).electron

describe('nodeRuntimeCommand', () => {
  it('runs the Electron binary as Node under Electron', () => {
    expect(nodeRuntimeCommand(electronProcess)).toEqual({
      command: '/opt/DR Studio/drstudio-app',
      env: { ELECTRON_RUN_AS_NODE: '1' }
    })
  })

  it('is plain Node under Node', () => {
    expect(nodeRuntimeCommand(nodeProcess)).toEqual({ command: '/usr/bin/node', env: {} })
  })
})

describe('managementCommandFor', () => {
  const root = mkdtempSync(join(tmpdir(), 'drstudio-app-root-'))
  const paths = { root, resourcesDir: join(root, 'resources'), rendererDir: '', version: '0' }

  it('has no command while the CLI is not built (the sandbox then runs the source entry)', () => {
    expect(managementCommandFor(paths)).toBeUndefined()
  })

  it('starts the built CLI with the runtime environment', () => {
    mkdirSync(join(root, 'out', 'cli'), { recursive: true })
    writeFileSync(join(root, 'out', 'cli', 'drstudio.mjs'), '')
    const underElectron = managementCommandFor(paths, nodeRuntimeCommand(electronProcess))!
    expect(underElectron('/run/mgmt-1/management.json')).toEqual({
      command: '/opt/DR Studio/drstudio-app',
      args: [
        join(root, 'out', 'cli', 'drstudio.mjs'),
        'mgmt',
        '--config',
        '/run/mgmt-1/management.json'
      ],
      cwd: root,
      env: { ELECTRON_RUN_AS_NODE: '1' }
    })
    const underNode = managementCommandFor(paths, nodeRuntimeCommand(nodeProcess))!
    expect(underNode('/x.json').env).toEqual({})
    rmSync(root, { recursive: true, force: true })
  })
})
