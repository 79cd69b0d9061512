// Whether the Electron binary is installed, without triggering electron@45's lazy download.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Returns the Electron executable path, or null when only the npm package (no binary) is present. */
export function electronBinary(root = process.cwd()) {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(
      process.env.ELECTRON_OVERRIDE_DIST_PATH,
      process.platform === 'win32' ? 'electron.exe' : 'electron'
    )
    return existsSync(p) ? p : null
  }
  const dir = join(root, 'node_modules', 'electron')
  const pathFile = join(dir, 'path.txt')
  if (!existsSync(pathFile)) return null
  const exe = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(exe) ? exe : null
}
