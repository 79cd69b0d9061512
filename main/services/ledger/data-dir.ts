import { homedir } from 'node:os'
import { join } from 'node:path'

/** Per-OS data folder (Electron's userData convention), overridable with DRSTUDIO_DATA_DIR for tests. */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir()
): string {
  if (env.DRSTUDIO_DATA_DIR) return env.DRSTUDIO_DATA_DIR
  if (platform === 'win32')
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'DR Studio')
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'DR Studio')
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'drstudio')
}
