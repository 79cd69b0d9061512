// `npm run audit:electron`: Electronegativity over the Electron shell as one app (main/app, preload
// and the page it loads), failing on any high-severity finding. Its CLI breaks when a newer commander
// is hoisted, so the programmatic entry is used. The check that downloads Electron's release list is
// excluded: this audit must not leave loopback.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const run = require('@doyensec/electronegativity')

const scanDir = join('test-results', 'electron-audit')
rmSync(scanDir, { recursive: true, force: true })
mkdirSync(scanDir, { recursive: true })
cpSync('main/app', join(scanDir, 'main', 'app'), { recursive: true })
cpSync('preload', join(scanDir, 'preload'), { recursive: true })
if (existsSync('renderer/index.html'))
  cpSync('renderer/index.html', join(scanDir, 'renderer', 'index.html'))

const { issues, errors, atomicChecks, globalChecks } = await run({
  input: scanDir,
  output: join('test-results', 'electronegativity.csv'),
  isSarif: false,
  customScan: [],
  excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
  severitySet: 'informational',
  confidenceSet: 'tentative',
  isRelative: true,
  electronVersionOverride: '45.0.0'
})

console.log(`${atomicChecks} atomic + ${globalChecks} global checks, ${issues.length} finding(s)`)
for (const e of errors)
  console.log(`  parse ${e.tolerable ? 'warning' : 'error'}: ${e.file}: ${e.message}`)
let high = 0
for (const i of issues) {
  const review = i.manualReview ? '(manual review)' : ''
  console.log(
    `  ${i.severity.name.padEnd(8)} ${i.confidence.name.padEnd(9)} ${i.id}  ${i.file}:${i.location.line} ${review}`
  )
  if (i.severity.name === 'HIGH' || i.severity.name === 'CRITICAL') high++
}
if (high > 0) {
  console.error(`\n${high} high-severity finding(s); report in test-results/electronegativity.csv`)
  process.exit(1)
}
console.log(
  '\nElectronegativity: no high-severity findings (report: test-results/electronegativity.csv)'
)
