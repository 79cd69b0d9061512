#!/usr/bin/env node
/**
 * Builds the Java client worker (resources/java-worker, the `java*` lanes) with Maven into
 * .rocketmq/java-worker/drstudio-java-worker.jar, against the RocketMQ version pinned in
 * resources/rocketmq/pom.xml. Called by `npm run setup` after the RocketMQ jars are fetched.
 *
 * Skips when the jar is newer than every source (pom files and src/main). Tries an offline build
 * first (`mvn -o`, enough once the RocketMQ jars were fetched), then an online one.
 * Flags: --force rebuilds, --test also runs the worker's JUnit tests.
 */
import { spawnSync } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const project = join(repo, 'resources', 'java-worker')
const pinPom = join(repo, 'resources', 'rocketmq', 'pom.xml')
const outDir = join(repo, '.rocketmq', 'java-worker')
const buildDir = join(outDir, 'build')
const jar = join(outDir, 'drstudio-java-worker.jar')
const force = process.argv.includes('--force')
const withTests = process.argv.includes('--test')

function log(msg) {
  process.stdout.write(`[build-java-worker] ${msg}\n`)
}

function fail(msg) {
  process.stderr.write(`[build-java-worker] error: ${msg}\n`)
  process.exit(1)
}

/** Newest modification time among the files that go into the jar. */
function newestSource() {
  let newest = Math.max(statSync(pinPom).mtimeMs, statSync(join(project, 'pom.xml')).mtimeMs)
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else newest = Math.max(newest, statSync(p).mtimeMs)
    }
  }
  walk(join(project, 'src', 'main'))
  return newest
}

function pinnedVersion() {
  const m = /<rocketmq\.version>([^<]+)<\/rocketmq\.version>/.exec(readFileSync(pinPom, 'utf8'))
  if (!m) fail(`${pinPom} has no <rocketmq.version>; restore it from git`)
  return m[1].trim()
}

function mvn(version, offline) {
  const args = [
    '-B',
    '-q',
    '-Dstyle.color=never',
    ...(offline ? ['-o'] : []),
    '-f',
    join(project, 'pom.xml'),
    `-Drocketmq.version=${version}`,
    `-Ddrstudio.build.dir=${buildDir}`,
    ...(withTests ? [] : ['-DskipTests']),
    'package'
  ]
  const r = spawnSync('mvn', args, { cwd: project, encoding: 'utf8' })
  return { status: r.error ? null : r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` }
}

function main() {
  if (!force && !withTests && existsSync(jar) && statSync(jar).mtimeMs > newestSource()) {
    log(`${jar} is up to date`)
    return
  }
  const probe = spawnSync('mvn', ['-v'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    fail(
      'Maven (mvn) was not found on PATH; the Java lanes need it to build their worker. Install Apache Maven 3.6+ ' +
        '(e.g. `apt-get install maven`, `brew install maven`) and run `npm run setup` again.'
    )
  }
  const version = pinnedVersion()
  log(`building the Java client worker against RocketMQ ${version}…`)
  const started = Date.now()
  let r = mvn(version, true)
  if (r.status !== 0) {
    log('offline build failed (the local Maven repository lacks a plugin or jar); retrying online')
    r = mvn(version, false)
  }
  if (r.status !== 0) {
    process.stderr.write(r.output.split('\n').slice(-40).join('\n') + '\n')
    fail(
      `mvn exited with ${r.status ?? 'an error'}. Check network access to Maven Central (or your ` +
        '~/.m2/settings.xml mirror) and a JDK 17+ on PATH, then run `npm run setup` again.'
    )
  }
  const built = join(buildDir, 'drstudio-java-worker.jar')
  if (!existsSync(built)) fail(`Maven finished but ${built} is missing; check ${project}/pom.xml`)
  mkdirSync(outDir, { recursive: true })
  const tmp = `${jar}.tmp-${process.pid}`
  copyFileSync(built, tmp)
  renameSync(tmp, jar)
  log(`${jar} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
}

main()
