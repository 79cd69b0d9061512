// `npm run setup`: everything a fresh machine needs — npm deps, the Electron binary when it can be
// downloaded, a Chromium for the e2e suite, the RocketMQ jars, the Java client worker, a build,
// and the network lab's nftables and delay router.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { electronBinary } from './electron-status.mjs'
import { canAptInstall, commandExists, ensureDebianTool, must, run, step } from './run.mjs'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }

step('installing npm dependencies (npm ci)')
must(npm, ['ci', '--no-audit', '--no-fund'], { env }, 'check network access to the npm registry')

step('Electron binary')
const hadElectron = electronBinary() !== null
if (!hadElectron) run(process.execPath, ['node_modules/electron/install.js'], { stdio: 'ignore' })
if (hadElectron) {
  console.log('Electron binary present')
} else if (electronBinary()) {
  console.log('Electron binary downloaded')
} else {
  console.log(
    'notice: the Electron binary could not be downloaded here; the desktop shell is unavailable on this machine.\n' +
      '        Everything else works: `npm start` opens the browser shell and the e2e suite uses Chromium.'
  )
}

step('native modules (better-sqlite3 for Node)')
must(process.execPath, ['scripts/ensure-native.mjs', 'node'])

step('browser for the e2e suite')
const chromium = process.env.DRSTUDIO_CHROMIUM ?? '/usr/bin/chromium'
if (existsSync(chromium)) {
  console.log(`using ${chromium}`)
} else if (process.platform === 'linux' && commandExists('apt-get') && process.getuid?.() === 0) {
  must('apt-get', ['update', '-qq'])
  must(
    'apt-get',
    ['install', '-y', '-qq', 'chromium'],
    {},
    'install Chromium and set DRSTUDIO_CHROMIUM to its path'
  )
} else if (run('npx', ['playwright', 'install', 'chromium']) !== 0) {
  console.log(
    'warning: no Chromium found; install one and set DRSTUDIO_CHROMIUM=/path/to/chromium for `npm run test:e2e`'
  )
}

step('Apache RocketMQ jars')
must(
  process.execPath,
  ['scripts/fetch-rocketmq.mjs'],
  {},
  'install Java 17+ and Maven, or set ROCKETMQ_HOME'
)

step('Java client worker (the java lanes)')
must(
  process.execPath,
  ['scripts/build-java-worker.mjs'],
  {},
  'install Maven and a JDK 17+, then run `npm run setup` again'
)

step('example application (examples/java-dr-app: the stock Java client with the extension)')
// Plain Maven resolves the stock client's own dependency tree, which differs from the sandbox's
// jars; resolving it here lets the tests build the example without the network.
must(
  'mvn',
  [
    '-B',
    '-q',
    '-f',
    'examples/java-dr-app/pom.xml',
    '-DskipTests',
    'package',
    'dependency:build-classpath',
    '-Dmdep.outputFile=target/classpath.txt'
  ],
  {},
  'check network access to Maven Central (or your ~/.m2/settings.xml mirror), then run `npm run setup` again'
)

step('build')
must(npm, ['run', 'build'])

// Each kind of RocketMQ JVM (name server, with a controller, broker, proxy) boots once and writes
// the classes it loaded to a class-data archive as it shuts down; every later boot maps the
// archive instead of loading and verifying those classes from the jars (see
// main/services/sandbox/class-archives.ts). Not fatal: without archives the JVMs boot slower.
step('class-data archives for the RocketMQ JVMs')
{
  const data = mkdtempSync(join(tmpdir(), 'drstudio-setup-'))
  for (const topology of ['two-rooms-proxies', 'three-rooms-controller']) {
    const code = run(
      process.execPath,
      [
        'out/cli/drstudio.mjs',
        'sandbox',
        'check',
        `resources/topologies/${topology}.json`,
        '--write-class-archives'
      ],
      { env: { ...process.env, DRSTUDIO_DATA_DIR: data }, stdio: ['ignore', 'ignore', 'inherit'] }
    )
    console.log(
      code === 0
        ? `archives written by ${topology}'s JVMs`
        : `warning: ${topology} did not boot cleanly (exit ${code}); its JVMs start without archives`
    )
  }
  rmSync(data, { recursive: true, force: true })
}

// Rooms as separate networks need nftables, and latency without netem needs the delay router.
// Neither is fatal: without them the sandbox runs every room on loopback and says why.
step('network lab (nftables, delay router)')
if (process.platform !== 'linux') {
  console.log('notice: network namespaces are Linux-only; rooms share loopback here')
} else {
  const root = process.getuid?.() === 0
  if (ensureDebianTool('nft', 'nftables')) console.log('nftables present')
  else {
    console.log(
      `warning: nft not found; network faults stay off. Fix: ${root ? '' : 'as root, '}apt-get install nftables`
    )
  }
  if (!commandExists('gcc') && !process.env.CC) {
    console.log(
      'warning: gcc not found, so the delay router is not built and latency faults stay off on kernels without netem. Fix: apt-get install gcc libc6-dev, then node scripts/build-native.mjs'
    )
  } else run(process.execPath, ['scripts/build-native.mjs'])
}

// The tests validate `drstudio scenario run --junit` against a JUnit schema with xmllint.
step('xmllint (JUnit schema checks in the tests)')
if (ensureDebianTool('xmllint', 'libxml2-utils')) {
  console.log('xmllint present')
} else if (canAptInstall()) {
  process.stderr.write(
    '\nsetup failed: apt-get could not install libxml2-utils\nfix: install libxml2-utils\n'
  )
  process.exit(1)
} else {
  console.log(
    'warning: xmllint not found; the JUnit schema tests will fail. Fix: install libxml2-utils (Debian/Ubuntu) or libxml2 (macOS: brew install libxml2)'
  )
}

// The failover benchmark's load axis (`npm run bench:failover -- --lanes ... --load idle,8,24`)
// adds busy stress-ng CPU workers; benchmarks only, so a failed install is a warning.
step("stress-ng (the failover benchmark's --load axis)")
if (ensureDebianTool('stress-ng', 'stress-ng')) {
  console.log('stress-ng present')
} else {
  console.log(
    "warning: stress-ng not found; the failover benchmark's --load busy steps will refuse to run. Fix: install stress-ng (Debian/Ubuntu: apt-get install stress-ng)"
  )
}

// The metrics tests check the endpoint with `promtool check metrics`. Only promtool is taken from
// Debian's prometheus package (extracted, not installed): no Prometheus server is set up or started.
step('promtool (metrics checks in the tests)')
const promtool = join('.tools', 'bin', 'promtool')
if (commandExists('promtool') || existsSync(promtool)) {
  console.log('promtool present')
} else if (process.platform === 'linux' && commandExists('apt-get') && commandExists('dpkg-deb')) {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-promtool-'))
  try {
    if (run('apt-get', ['download', '-qq', 'prometheus'], { cwd: dir }) !== 0) {
      if (process.getuid?.() === 0) must('apt-get', ['update', '-qq'])
      must(
        'apt-get',
        ['download', '-qq', 'prometheus'],
        { cwd: dir },
        'install promtool (Prometheus) and put it on PATH'
      )
    }
    const deb = readdirSync(dir).find((f) => f.startsWith('prometheus_') && f.endsWith('.deb'))
    if (!deb) throw new Error('apt-get download prometheus wrote no .deb')
    must('dpkg-deb', ['-x', join(dir, deb), join(dir, 'x')])
    mkdirSync(dirname(promtool), { recursive: true })
    copyFileSync(join(dir, 'x', 'usr', 'bin', 'promtool'), promtool)
    chmodSync(promtool, 0o755)
    console.log(`promtool extracted to ${promtool}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else {
  console.log(
    'warning: promtool not found; the metrics tests will fail. Fix: install Prometheus (promtool) and put it on PATH'
  )
}

console.log('\nsetup complete: run `npm test` to verify, `npm start` to launch DR Studio')
