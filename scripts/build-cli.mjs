// Bundles the drstudio CLI (and the browser shell, which it hosts) into out/cli for plain Node.
import { build } from 'esbuild'

await build({
  entryPoints: { drstudio: 'main/cli/index.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning'
})
console.log('built out/cli/drstudio.mjs')
