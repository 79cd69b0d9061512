// Makes better-sqlite3 match the runtime that will load it: Node (tests, CLI) or Electron (the app).
import { spawnSync } from 'node:child_process'
import { electronBinary } from './electron-status.mjs'

const target = process.argv[2] ?? 'node'
const probe = "require('better-sqlite3')(':memory:').close()"

function loads(cmd, env) {
  return (
    spawnSync(cmd, ['-e', probe], { env: { ...process.env, ...env }, stdio: 'ignore' }).status === 0
  )
}

if (target === 'electron') {
  const exe = electronBinary()
  if (!exe) {
    console.error(
      'the Electron binary is not installed; run `npm run setup` on a machine that can download it'
    )
    process.exit(1)
  }
  if (!loads(exe, { ELECTRON_RUN_AS_NODE: '1' })) {
    console.log('rebuilding better-sqlite3 for Electron…')
    const r = spawnSync('npx', ['electron-builder', 'install-app-deps'], { stdio: 'inherit' })
    process.exit(r.status ?? 1)
  }
} else if (!loads(process.execPath, {})) {
  console.log('rebuilding better-sqlite3 for Node…')
  const r = spawnSync('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit' })
  if (r.status !== 0 || !loads(process.execPath, {})) {
    console.error(
      'better-sqlite3 does not load in Node; a C++ toolchain (gcc, make, python3) is needed to build it'
    )
    process.exit(1)
  }
}
console.log(`better-sqlite3 loads in ${target}`)
