#!/usr/bin/env node
/**
 * Copies the Apache RocketMQ server jars pinned in resources/rocketmq/pom.xml into .rocketmq/lib,
 * so the sandbox can run real name servers and brokers. Called by `npm run setup`.
 *
 * Skips when .rocketmq/lib already holds a complete copy of the pinned version (see the marker file
 * .rocketmq/lib/.drstudio-rocketmq.json). Pass --force to fetch again.
 */
import { spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const pom = join(repo, 'resources', 'rocketmq', 'pom.xml')
const root = join(repo, '.rocketmq')
const lib = join(root, 'lib')
const markerName = '.drstudio-rocketmq.json'
const force = process.argv.includes('--force')

/** Jars the sandbox cannot start without; their absence means the copy is broken. */
const REQUIRED = ['rocketmq-namesrv', 'rocketmq-broker', 'rocketmq-proxy', 'rocketmq-tools']

function log(msg) {
  process.stdout.write(`[fetch-rocketmq] ${msg}\n`)
}

function fail(msg) {
  process.stderr.write(`[fetch-rocketmq] error: ${msg}\n`)
  process.exit(1)
}

function pinnedVersion() {
  const text = readFileSync(pom, 'utf8')
  const m = /<rocketmq\.version>([^<]+)<\/rocketmq\.version>/.exec(text)
  if (!m) fail(`${pom} has no <rocketmq.version> property; restore the file from git`)
  return m[1].trim()
}

function javaCommand() {
  const home = process.env.JAVA_HOME
  return home ? join(home, 'bin', 'java') : 'java'
}

function checkJava() {
  const java = javaCommand()
  const r = spawnSync(java, ['-version'], { encoding: 'utf8' })
  if (r.error || r.status !== 0) {
    fail(
      `Java was not found (${java}). Install a JDK 17 or newer (e.g. \`apt-get install openjdk-17-jdk\`) ` +
        'or set JAVA_HOME to one, then run `npm run setup` again.'
    )
  }
  const text = `${r.stderr}${r.stdout}`
  const m = /version "(\d+)(?:\.(\d+))?/.exec(text)
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN
  if (!(major >= 17)) {
    fail(
      `${java} is Java ${Number.isNaN(major) ? '(unknown version)' : major}; DR Studio needs 17 or newer. ` +
        'Install a JDK 17 or set JAVA_HOME to one, then run `npm run setup` again.'
    )
  }
  log(`java ${major} found (${java})`)
}

function checkMaven() {
  const r = spawnSync('mvn', ['-v'], { encoding: 'utf8' })
  if (r.error || r.status !== 0) {
    fail(
      'Maven (mvn) was not found on PATH. Install Apache Maven 3.6+ (e.g. `apt-get install maven`, ' +
        '`brew install maven`), or download RocketMQ 5.3.3 yourself and set ROCKETMQ_HOME to it ' +
        '(the sandbox then uses $ROCKETMQ_HOME/lib).'
    )
  }
}

/** Complete = marker names the pinned version and every jar it lists is present with its size. */
function isComplete(version) {
  const marker = join(lib, markerName)
  if (!existsSync(marker)) return false
  try {
    const m = JSON.parse(readFileSync(marker, 'utf8'))
    if (m.version !== version || !Array.isArray(m.jars) || m.jars.length === 0) return false
    return m.jars.every((j) => {
      const p = join(lib, j.name)
      return existsSync(p) && statSync(p).size === j.size
    })
  } catch {
    return false
  }
}

/**
 * Runs Maven in batch mode and turns its "Downloaded from" lines into a one-line ticker; the last
 * lines of output are kept for the error message.
 */
function runMaven(outputDir) {
  return new Promise((done) => {
    const child = spawn(
      'mvn',
      [
        '-B',
        '-Dstyle.color=never',
        '-f',
        pom,
        'dependency:copy-dependencies',
        `-DoutputDirectory=${outputDir}`
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: repo }
    )
    const tail = []
    let downloaded = 0
    let buffered = ''
    const onData = (chunk) => {
      buffered += chunk.toString('utf8')
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) {
        if (/^\[INFO\] Downloaded from /.test(line)) downloaded++
        tail.push(line)
        if (tail.length > 40) tail.shift()
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const t0 = Date.now()
    const ticker = setInterval(
      () =>
        log(
          `… Maven still working (${Math.round((Date.now() - t0) / 1000)} s, ${downloaded} artifacts downloaded)`
        ),
      5000
    )
    child.once('error', (err) => {
      clearInterval(ticker)
      done({ status: null, error: err.message, tail })
    })
    child.once('close', (status) => {
      clearInterval(ticker)
      done({ status, tail })
    })
  })
}

async function main() {
  const version = pinnedVersion()
  if (!force && isComplete(version)) {
    log(`RocketMQ ${version} jars already in ${lib}; nothing to do (use --force to fetch again)`)
    return
  }
  checkJava()
  checkMaven()
  mkdirSync(root, { recursive: true })
  const tmp = join(root, `lib.tmp-${process.pid}`)
  rmSync(tmp, { recursive: true, force: true })
  log(`downloading RocketMQ ${version} and its dependencies with Maven (first run takes ~1 min)…`)
  const started = Date.now()
  const r = await runMaven(tmp)
  if (r.status !== 0) {
    rmSync(tmp, { recursive: true, force: true })
    if (r.tail.length > 0) process.stderr.write(`${r.tail.join('\n')}\n`)
    fail(
      `mvn exited with ${r.status ?? r.error}. Check network access to Maven Central ` +
        '(or your ~/.m2/settings.xml mirror), then run `npm run setup` again.'
    )
  }
  const jars = readdirSync(tmp).filter((f) => f.endsWith('.jar'))
  const missing = REQUIRED.filter((a) => !jars.includes(`${a}-${version}.jar`))
  if (missing.length > 0) {
    rmSync(tmp, { recursive: true, force: true })
    fail(`Maven finished but ${missing.join(', ')} ${version} is missing; check ${pom}`)
  }
  const listing = jars.sort().map((name) => ({ name, size: statSync(join(tmp, name)).size }))
  writeFileSync(
    join(tmp, markerName),
    JSON.stringify({ version, fetchedAt: new Date().toISOString(), jars: listing }, null, 2) + '\n'
  )
  rmSync(lib, { recursive: true, force: true })
  renameSync(tmp, lib)
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  log(`RocketMQ ${version}: ${jars.length} jars in ${lib} (${secs} s)`)
}

await main()
