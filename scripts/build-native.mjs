// Builds the native helpers into out/native (gitignored): today the TUN delay router that gives
// room links latency on kernels without netem (see docs/network.md). Exit 0 when built or up to
// date; otherwise one line with the fix and exit 1 (setup reports it and carries on).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const source = join(root, 'resources', 'network', 'delay-router.c')
const target = join(root, 'out', 'native', 'drs-delay-router')

if (process.platform !== 'linux') {
  console.log('native helpers: skipped (the delay router is Linux-only; network faults need Linux)')
  process.exit(0)
}
if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) {
  console.log(`native helpers: ${target} is up to date`)
  process.exit(0)
}
const cc = process.env.CC || 'gcc'
mkdirSync(dirname(target), { recursive: true })
const tmp = `${target}.${process.pid}.tmp`
const r = spawnSync(cc, ['-O2', '-Wall', '-Wextra', '-o', tmp, source], { stdio: 'inherit' })
if (r.error || r.status !== 0) {
  console.log(
    `native helpers: could not build the delay router with ${cc} (${r.error?.message ?? `exit ${r.status}`}); ` +
      'latency faults stay off on kernels without netem. Fix: apt-get install gcc libc6-dev, then node scripts/build-native.mjs'
  )
  process.exit(1)
}
renameSync(tmp, target)
console.log(`native helpers: built ${target}`)
