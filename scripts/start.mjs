// `npm start`: the Electron app where its binary exists, otherwise the browser shell.
import { spawn } from 'node:child_process'
import { electronBinary } from './electron-status.mjs'
import { run } from './run.mjs'

const exe = electronBinary()
if (exe) {
  if (run(process.execPath, ['scripts/ensure-native.mjs', 'electron']) !== 0) process.exit(1)
  const child = spawn(exe, ['.'], { stdio: 'inherit' })
  child.on('exit', (code) => {
    // Leave better-sqlite3 usable for the CLI and the tests again.
    run(process.execPath, ['scripts/ensure-native.mjs', 'node'], { stdio: 'ignore' })
    process.exit(code ?? 0)
  })
} else {
  console.log('Electron binary not installed here: starting the browser shell instead.')
  const child = spawn(
    process.execPath,
    ['bin/drstudio.js', 'serve', '--open', ...process.argv.slice(2)],
    {
      stdio: 'inherit'
    }
  )
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code) => process.exit(code ?? 0))
}
