// Vendors the OpenAPI schemas of the Chaos Mesh CRDs that `drstudio export --target chaos-mesh`
// emits, as JSON, into resources/schemas/chaos-mesh-<minor>.x/. Run it against a clone of
// chaos-mesh/chaos-mesh:
//   node scripts/vendor-chaos-mesh-schemas.mjs /path/to/chaos-mesh v2.8.3
// It reads config/crd/bases/chaos-mesh.org_<plural>.yaml at that tag (git show), keeps the served
// version's openAPIV3Schema, drops `description` texts, and drops the chaos kinds the export never
// writes from Workflow templates and Schedules (so the files stay small and an emitted object that
// used one would be refused). Nothing else is changed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

const [repo, tag] = process.argv.slice(2)
if (!repo || !/^v\d+\.\d+\.\d+$/.test(tag ?? '')) {
  console.error('usage: node scripts/vendor-chaos-mesh-schemas.mjs <chaos-mesh clone> <vX.Y.Z>')
  process.exit(2)
}

const PLURALS = ['networkchaos', 'podchaos', 'workflows', 'schedules']
/** The embedded chaos kinds the export writes; every other `*Chaos` key is dropped. */
const KEPT_CHAOS = new Set(['networkChaos', 'podChaos'])

function withoutDescriptions(node) {
  if (Array.isArray(node)) return node.map(withoutDescriptions)
  if (node === null || typeof node !== 'object') return node
  const out = {}
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' && typeof v === 'string') continue
    out[k] = withoutDescriptions(v)
  }
  return out
}

function dropUnusedChaos(properties) {
  for (const key of Object.keys(properties)) {
    if (/Chaos$/.test(key) && !KEPT_CHAOS.has(key)) delete properties[key]
  }
}

function prune(plural, schema) {
  const spec = schema.properties.spec
  if (plural === 'workflows') dropUnusedChaos(spec.properties.templates.items.properties)
  if (plural === 'schedules') {
    dropUnusedChaos(spec.properties)
    dropUnusedChaos(spec.properties.workflow.properties.templates.items.properties)
  }
  return schema
}

const commit = execFileSync('git', ['-C', repo, 'rev-parse', `${tag}^{commit}`], {
  encoding: 'utf8'
}).trim()
const outDir = join(
  'resources',
  'schemas',
  `chaos-mesh-${tag.replace(/^v(\d+\.\d+)\..*$/, '$1')}.x`
)
mkdirSync(outDir, { recursive: true })
for (const plural of PLURALS) {
  const path = `config/crd/bases/chaos-mesh.org_${plural}.yaml`
  const crd = parse(
    execFileSync('git', ['-C', repo, 'show', `${tag}:${path}`], {
      encoding: 'utf8',
      maxBuffer: 1 << 26
    })
  )
  const version = crd.spec.versions.find((v) => v.served && v.storage)
  const schema = prune(plural, withoutDescriptions(version.schema.openAPIV3Schema))
  const doc = {
    $comment: `chaos-mesh ${tag} (${commit}) ${path}, ${crd.spec.names.kind} ${version.name}; descriptions and unused chaos kinds dropped by scripts/vendor-chaos-mesh-schemas.mjs`,
    group: crd.spec.group,
    version: version.name,
    kind: crd.spec.names.kind,
    openAPIV3Schema: schema
  }
  const file = join(outDir, `${crd.spec.names.kind.toLowerCase()}.json`)
  writeFileSync(file, JSON.stringify(doc) + '\n')
  console.log(`wrote ${file}`)
}
