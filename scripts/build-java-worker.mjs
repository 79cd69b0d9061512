#!/usr/bin/env node
/**
 * Builds the Java side with Maven, against the RocketMQ version pinned in resources/rocketmq/pom.xml:
 * first the room-aware extension of the stock client (resources/java-dr, `mvn install`ed into the
 * local Maven repository so the worker and examples/ can depend on it), then the Java client worker
 * (resources/java-worker, the `java*` lanes). Both jars land in .rocketmq/java-worker/. Called by
 * `npm run setup` after the RocketMQ jars are fetched.
 *
 * Skips when both jars are newer than every source (pom files and src/main). Tries an offline build
 * first (`mvn -o`, enough once the RocketMQ jars were fetched), then an online one.
 * Flags: --force rebuilds, --test also runs both modules' JUnit tests.
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
const pinPom = join(repo, 'resources', 'rocketmq', 'pom.xml')
const outDir = join(repo, '.rocketmq', 'java-worker')
/** In build order: the worker compiles against the extension. */
const modules = [
  {
    name: 'drstudio-rocketmq-dr',
    what: 'the room-aware extension of the Java client',
    project: join(repo, 'resources', 'java-dr'),
    buildDir: join(repo, '.rocketmq', 'java-dr', 'build'),
    goal: 'install'
  },
  {
    name: 'drstudio-java-worker',
    what: 'the Java client worker',
    project: join(repo, 'resources', 'java-worker'),
    buildDir: join(outDir, 'build'),
    goal: 'package'
  }
]
const jarOf = (m) => join(outDir, `${m.name}.jar`)
const force = process.argv.includes('--force')
const withTests = process.argv.includes('--test')

function log(msg) {
  process.stdout.write(`[build-java-worker] ${msg}\n`)
}

function fail(msg) {
  process.stderr.write(`[build-java-worker] error: ${msg}\n`)
  process.exit(1)
}

/** Newest modification time among the files that go into the jars. */
function newestSource() {
  let newest = statSync(pinPom).mtimeMs
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) walk(p)
      else newest = Math.max(newest, statSync(p).mtimeMs)
    }
  }
  for (const m of modules) {
    newest = Math.max(newest, statSync(join(m.project, 'pom.xml')).mtimeMs)
    walk(join(m.project, 'src', 'main'))
  }
  return newest
}

function pinnedVersion() {
  const m = /<rocketmq\.version>([^<]+)<\/rocketmq\.version>/.exec(readFileSync(pinPom, 'utf8'))
  if (!m) fail(`${pinPom} has no <rocketmq.version>; restore it from git`)
  return m[1].trim()
}

function mvn(m, version, offline) {
  const args = [
    '-B',
    '-q',
    '-Dstyle.color=never',
    ...(offline ? ['-o'] : []),
    '-f',
    join(m.project, 'pom.xml'),
    `-Drocketmq.version=${version}`,
    `-Ddrstudio.build.dir=${m.buildDir}`,
    ...(withTests ? [] : ['-DskipTests']),
    m.goal
  ]
  const r = spawnSync('mvn', args, { cwd: m.project, encoding: 'utf8' })
  return { status: r.error ? null : r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` }
}

/** Builds one module (offline first) and puts its jar in .rocketmq/java-worker/. */
function build(m, version) {
  log(`building ${m.what} against RocketMQ ${version}…`)
  const started = Date.now()
  let r = mvn(m, version, true)
  if (r.status !== 0) {
    log('offline build failed (the local Maven repository lacks a plugin or jar); retrying online')
    r = mvn(m, version, false)
  }
  if (r.status !== 0) {
    process.stderr.write(r.output.split('\n').slice(-40).join('\n') + '\n')
    fail(
      `mvn exited with ${r.status ?? 'an error'} building ${m.name}. Check network access to Maven Central (or your ` +
        '~/.m2/settings.xml mirror) and a JDK 17+ on PATH, then run `npm run setup` again.'
    )
  }
  const built = join(m.buildDir, `${m.name}.jar`)
  if (!existsSync(built)) fail(`Maven finished but ${built} is missing; check ${m.project}/pom.xml`)
  mkdirSync(outDir, { recursive: true })
  const tmp = `${jarOf(m)}.tmp-${process.pid}`
  copyFileSync(built, tmp)
  renameSync(tmp, jarOf(m))
  log(`${jarOf(m)} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
}

function main() {
  const newest = newestSource()
  const fresh = modules.every((m) => existsSync(jarOf(m)) && statSync(jarOf(m)).mtimeMs > newest)
  if (!force && !withTests && fresh) {
    log(`${modules.map(jarOf).join(' and ')} are up to date`)
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
  for (const m of modules) build(m, version)
}

main()
