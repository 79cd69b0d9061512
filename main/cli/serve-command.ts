import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { startBrowserShell } from '../serve/server'
import { findAppPaths } from '../services/app-paths'
import { createEngine } from '../services/engine/create-engine'
import { serveMetrics } from '../services/metrics/metrics-endpoint'

const BROWSERS = [
  '/usr/bin/xdg-open',
  '/usr/bin/open',
  '/usr/bin/chromium',
  '/usr/bin/google-chrome'
]

/** Opens the URL in a desktop browser when one exists and a display is available. */
function openInBrowser(url: string): boolean {
  const hasDisplay =
    process.platform === 'darwin' || !!process.env.DISPLAY || !!process.env.WAYLAND_DISPLAY
  const opener = BROWSERS.find((b) => existsSync(b))
  if (!hasDisplay || !opener) return false
  spawn(opener, [url], { detached: true, stdio: 'ignore' }).unref()
  return true
}

/** `drstudio serve`: the browser shell on 127.0.0.1 until Ctrl-C. */
export async function runServeCommand(opts: {
  port: number
  open: boolean
  metrics?: string
}): Promise<void> {
  const paths = findAppPaths()
  const address = opts.metrics ?? process.env.DRSTUDIO_METRICS
  const endpoint = address ? await serveMetrics(address, undefined, process.stdout) : null
  const engine = createEngine({
    shell: 'browser',
    paths,
    ...(endpoint ? { metrics: endpoint.metrics } : {})
  })
  let server
  try {
    server = await startBrowserShell({ engine, rendererDir: paths.rendererDir, port: opts.port })
  } catch (err) {
    await engine.dispose()
    await endpoint?.close()
    throw err
  }
  process.stdout.write(`DR Studio browser shell: ${server.url}\n`)
  if (opts.open && openInBrowser(server.url)) process.stdout.write('opened in your browser\n')
  let stopping = false
  const stop = async () => {
    if (stopping) return
    stopping = true
    process.stdout.write('stopping…\n')
    await server.close()
    await engine.dispose()
    await endpoint?.close()
    process.exit(0)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
