#!/usr/bin/env node
// Entry of the `drstudio` command; the real code is the bundle `npm run build` writes.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const bundle = join(dirname(fileURLToPath(import.meta.url)), '..', 'out', 'cli', 'drstudio.mjs')
if (!existsSync(bundle)) {
  process.stderr.write(
    `drstudio: ${bundle} is missing; run \`npm run setup\` (or \`npm run build\`) first\n`
  )
  process.exit(1)
}
await import(pathToFileURL(bundle).href)
