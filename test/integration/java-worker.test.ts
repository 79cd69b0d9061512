import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DeliveryRecord, SendRecord } from '../../main/services/ledger/types'
import { findJava, Sandbox } from '../../main/services/sandbox'
import { scrubEnv } from '../../main/services/sandbox/jvm'
import { detectDeathTie, tiedCommand } from '../../main/services/sandbox/processes'
import type { JavaLane } from '../../common/topology/lanes'
import { JAVA_LANES } from '../../common/topology/lanes'
import type { JavaWorkerPlan } from '../../main/services/workers/java-worker-command'
import {
  javaWorkerCommand,
  javaWorkerJar,
  planJavaWorkers
} from '../../main/services/workers/java-worker-command'
import type { ClientSpec, QueueState, WireRow } from '../../main/services/worker-wire/protocol'
import { encodeFrame, FrameDecoder } from '../../main/services/worker-wire/protocol'
import type { WorkerCommand } from '../../main/services/workers/worker-channel'
import { WorkerConnection } from '../../main/services/workers/worker-connection'
import { topologySchema } from '../../common/topology/schema'
import { createTopologyTopicsOn } from './helpers/topics'

/**
 * The Java client worker on the two-rooms sandbox: one JVM per (room, lane), a producer and a
 * consumer per room on each Java lane, every row through WorkerConnection exactly as the engine
 * gets them. Checks come from the rows: deliveries against acknowledged keys, brokers per room.
 */

const REPO = resolve(import.meta.dirname, '../..')
const ROOMS = ['room1', 'room2'] as const
const BROKER_ROOMS = { 'broker-a': 'room1', 'broker-b': 'room2' }
const TAG = 'dr'
const topicOf = (lane: JavaLane): string => `jw-${lane}`
const producerId = (room: string, lane: JavaLane): string => `producer-${room}-${lane}`
const consumerId = (room: string, lane: JavaLane): string => `consumer-${room}-${lane}`

type SendRow = { k: 's' } & SendRecord
type DeliveryRow = { k: 'd' } & DeliveryRecord
type EventRow = Extract<WireRow, { k: 'e' }>

/** Polls `read` until `done` holds or the budget ends; returns the last value (hooks cannot use expect.poll). */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = await read()
    if (done(v) || Date.now() > deadline) return v
    await new Promise((r) => setTimeout(r, 500))
  }
}

function buildWorker(): void {
  const build = spawnSync(process.execPath, ['scripts/build-java-worker.mjs'], {
    cwd: REPO,
    encoding: 'utf8'
  })
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0)
}

/** examples/java-dr-app: plain Maven, the stock client and the extension only (issue 25). */
const EXAMPLE = join(REPO, 'examples', 'java-dr-app')
const EXAMPLE_TOPIC = 'jw-example'

function buildExample(): void {
  const args = [
    '-B',
    '-q',
    '-DskipTests',
    'package',
    'dependency:build-classpath',
    '-Dmdep.outputFile=target/classpath.txt'
  ]
  // Offline first: npm run setup resolved the example's dependencies.
  let mvn = spawnSync('mvn', ['-o', ...args], { cwd: EXAMPLE, encoding: 'utf8' })
  if (mvn.status !== 0) mvn = spawnSync('mvn', args, { cwd: EXAMPLE, encoding: 'utf8' })
  expect(mvn.status, `${mvn.stdout}${mvn.stderr}`).toBe(0)
  // What `drstudio export` hands a Java team compiles against the extension as it is.
  const out = mkdtempSync(join(tmpdir(), 'drstudio-it-room-aware-setup-'))
  const javac = spawnSync(
    join(dirname(findJava().path), 'javac'),
    [
      '-d',
      out,
      '-cp',
      exampleClasspath(),
      join(REPO, 'test/golden/export/two-rooms/room1/RoomAwareSetup.java')
    ],
    { encoding: 'utf8' }
  )
  rmSync(out, { recursive: true, force: true })
  expect(javac.status, javac.stderr).toBe(0)
}

const exampleClasspath = (): string =>
  [
    join(EXAMPLE, 'target', 'classes'),
    readFileSync(join(EXAMPLE, 'target', 'classpath.txt'), 'utf8').trim()
  ].join(delimiter)

/** Starts the example in room 1 for 10 s; its output lines, and its summary line once it exits. */
function startExample(management: string): { lines: string[]; exited: Promise<string> } {
  // Tied to the test process like every JVM the sandbox starts: a killed vitest leaves none behind.
  const tied = tiedCommand(detectDeathTie(), findJava().path, [
    '-Xmx128m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-cp',
    exampleClasspath(),
    'example.DrExample',
    '--room',
    'room1',
    '--management',
    management,
    '--topic',
    EXAMPLE_TOPIC,
    '--seconds',
    '10',
    '--drain',
    '1',
    '--rate',
    '20'
  ])
  const child = spawn(tied.command, tied.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: scrubEnv(process.env)
  })
  const lines: string[] = []
  let rest = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n')
    rest = parts.pop()!
    lines.push(...parts)
  })
  child.stderr.resume()
  const exited = new Promise<string>((resolve) =>
    child.on('exit', () =>
      resolve(lines.find((l) => l.startsWith('summary')) ?? `exited without a summary`)
    )
  )
  return { lines, exited }
}

const workerCommand = (plan: JavaWorkerPlan, workDir: string): WorkerCommand =>
  javaWorkerCommand({
    java: findJava().path,
    rocketmqLib: join(REPO, '.rocketmq', 'lib'),
    workerJar: javaWorkerJar(REPO),
    plan,
    workDir
  })

describe('Java client worker, error paths (no cluster)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drstudio-it-java-worker-errors-'))
  const plan: JavaWorkerPlan = {
    workerId: 'java-room1-java',
    room: 'room1',
    lane: 'java',
    addressServer: '127.0.0.1:1',
    tuning: {},
    clients: []
  }
  const good = (over: Partial<ClientSpec> = {}): ClientSpec => ({
    id: 'producer-x',
    role: 'producer',
    room: 'room1',
    lane: 'java',
    topic: 'jw-none',
    group: 'g',
    tag: TAG,
    roomOrder: [...ROOMS],
    managementNodes: [],
    nameServers: [{ id: 'ns-x', room: 'room1', address: '127.0.0.1:1' }],
    brokerRooms: BROKER_ROOMS,
    tuning: {},
    ...over
  })
  let w: WorkerConnection

  beforeAll(() => {
    buildWorker()
    w = new WorkerConnection({
      name: plan.workerId,
      command: workerCommand(plan, dir),
      logFile: join(dir, 'worker.log')
    })
  })

  afterAll(async () => {
    await w.shutdown(15_000)
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses what this JVM cannot host, naming the JVM or field it needs', async () => {
    const fails = (op: Promise<unknown>) =>
      op.then(
        () => expect.unreachable(),
        (e: unknown) => e
      )
    expect(
      await w.request('hello', { protocol: 1, workerId: plan.workerId, room: 'room1' })
    ).toMatchObject({
      runtime: 'java',
      lanes: ['java']
    })
    expect(
      await fails(w.request('hello', { protocol: 2, workerId: plan.workerId, room: 'room1' }))
    ).toMatchObject({
      code: 'protocol'
    })
    expect(
      await fails(w.request('client.create', { spec: good({ lane: 'java-zone' }) }))
    ).toMatchObject({
      code: 'wrong-lane',
      message: expect.stringContaining('started for java; start one Java worker per room and lane')
    })
    expect(
      await fails(w.request('client.create', { spec: good({ room: 'room2' }) }))
    ).toMatchObject({
      code: 'wrong-room'
    })
    expect(
      await fails(w.request('client.create', { spec: good({ lane: 'remoting' }) }))
    ).toMatchObject({
      code: 'wrong-lane',
      message: expect.stringContaining('Run it in the room worker instead')
    })
    expect(await fails(w.request('client.create', { spec: good({ topic: '' }) }))).toMatchObject({
      code: 'bad-spec',
      message: expect.stringContaining('spec.topic is missing for client producer-x')
    })
    const otherMgmt = [{ id: 'mgmt-9', room: 'room1', url: 'http://127.0.0.1:2' }]
    expect(
      await fails(w.request('client.create', { spec: good({ managementNodes: otherMgmt }) }))
    ).toMatchObject({
      code: 'wrong-address-server',
      message: expect.stringContaining('-Drocketmq.namesrv.domain=127.0.0.1:2')
    })
    expect(await fails(w.request('client.start', { id: 'nobody', timeoutMs: 10 }))).toMatchObject({
      code: 'unknown-client'
    })
    expect(await fails(w.request('bogus' as never, {} as never))).toMatchObject({
      code: 'unknown-op'
    })
    // A name server that refuses connections: the start fails with the topic and the address.
    await w.request('client.create', { spec: good() })
    expect(
      await fails(w.request('client.start', { id: 'producer-x', timeoutMs: 1000 }))
    ).toMatchObject({
      code: 'no-route',
      message: expect.stringContaining(
        'no route for topic jw-none within 1000 ms (name servers: [127.0.0.1:1])'
      )
    })
    // A failed start leaves nothing behind: the id can be created again.
    expect((await w.request('client.state', {})).clients).toEqual([])
    await w.request('client.create', { spec: good() })
  })

  it('keeps stdout to frames, survives a non-JSON frame, and exits at stdin EOF', async () => {
    const cmd = workerCommand(plan, dir)
    const child = spawn(cmd.argv[0]!, cmd.argv.slice(1), {
      env: cmd.env,
      cwd: cmd.cwd,
      stdio: 'pipe'
    })
    const decoder = new FrameDecoder()
    const frames: { t: string; id?: number; ok?: boolean }[] = []
    child.stdout.on('data', (c: Buffer) => frames.push(...(decoder.push(c) as typeof frames)))
    const head = Buffer.alloc(4)
    head.writeUInt32BE(3)
    child.stdin.write(Buffer.concat([head, Buffer.from('{x}')]))
    child.stdin.write(
      encodeFrame({
        t: 'req',
        id: 1,
        op: 'hello',
        args: { protocol: 1, workerId: 'x', room: 'room1' }
      })
    )
    await expect.poll(() => frames.filter((f) => f.t === 'res').length, { timeout: 15_000 }).toBe(1)
    expect(frames).toContainEqual(expect.objectContaining({ t: 'log', level: 'error' }))
    expect(frames).toContainEqual(expect.objectContaining({ t: 'res', id: 1, ok: true }))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    child.stdin.end()
    expect(await exited).toBe(0)
    expect(decoder.pending).toBe(0)
  })
})

describe('Java client worker on real RocketMQ 5.3.3', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'drstudio-it-java-worker-'))
  const sb = new Sandbox({ dataDir, repoRoot: REPO })
  const workers = new Map<string, WorkerConnection>()
  const lanesOf = new Map<string, { room: string; lane: JavaLane }>()
  /** Which worker hosts each client. */
  const hostOf = new Map<string, WorkerConnection>()
  const specs = new Map<string, ClientSpec>()
  const rows: WireRow[] = []
  let runDir = ''

  const sends = (id?: string): SendRow[] =>
    rows.filter((r): r is SendRow => r.k === 's' && (id === undefined || r.clientId === id))
  const deliveries = (): DeliveryRow[] => rows.filter((r): r is DeliveryRow => r.k === 'd')
  const events = (kind: string, id?: string): EventRow[] =>
    rows.filter(
      (r): r is EventRow =>
        r.k === 'e' && r.kind === kind && (id === undefined || r.clientId === id)
    )
  const undelivered = (): string[] => {
    const got = new Set(deliveries().map((d) => d.key))
    return sends()
      .filter((s) => s.status === 'acked' && !got.has(s.key))
      .map((s) => s.key)
  }
  /** The sends that break a rule, whole, so a failure shows what they were. */
  const offenders = (list: SendRow[], ok: (s: SendRow) => boolean): SendRow[] =>
    list.filter((s) => !ok(s))
  const request = <T>(clientId: string, f: (w: WorkerConnection) => Promise<T>): Promise<T> =>
    f(hostOf.get(clientId)!)

  const spec = (
    role: 'producer' | 'consumer',
    room: string,
    lane: JavaLane,
    mgmt: ClientSpec['managementNodes']
  ): ClientSpec => ({
    id: role === 'producer' ? producerId(room, lane) : consumerId(room, lane),
    role,
    room,
    lane,
    topic: topicOf(lane),
    group: `jw-${lane}-${role}`,
    tag: TAG,
    roomOrder: [...ROOMS],
    managementNodes: [...mgmt].sort((a, b) => Number(b.room === room) - Number(a.room === room)),
    nameServers: [],
    brokerRooms: BROKER_ROOMS,
    // java-dr keeps the extension's 1 s cap per attempt: eight JVMs starting on two cores answer
    // past 400 ms at first, and the stock remoting client closes the socket on a timeout, failing
    // every request in flight on it, so a 400 ms cap would send healthy traffic across rooms.
    tuning:
      lane === 'java-dr' ? { sendTimeoutMs: 3000 } : { sendTimeoutMs: 3000, requestTimeoutMs: 400 }
  })

  const assignments = async (lane: JavaLane): Promise<Record<string, QueueState[]>> => {
    const out: Record<string, QueueState[]> = {}
    for (const room of ROOMS) {
      const id = consumerId(room, lane)
      const { clients } = await request(id, (w) => w.request('client.state', { ids: [id] }))
      out[room] = clients[0]?.assignment ?? []
    }
    return out
  }

  beforeAll(async () => {
    buildWorker()
    buildExample()

    const raw = JSON.parse(readFileSync(join(REPO, 'resources/topologies/two-rooms.json'), 'utf8'))
    raw.topics = [
      ...JAVA_LANES.map((lane) => ({ name: topicOf(lane), queues: 4 })),
      { name: EXAMPLE_TOPIC, queues: 4 }
    ]
    const topology = topologySchema.parse(raw)
    runDir = (await sb.start(topology)).runDir!
    await createTopologyTopicsOn(sb, topology)
    expect((await sb.waitForRegistration()).allMs).not.toBeNull()

    const mgmt = ROOMS.map((room, i) => ({
      id: `mgmt-${i + 1}`,
      room,
      url: `http://${sb.node(`mgmt-${i + 1}`).address}`
    }))
    const all = JAVA_LANES.flatMap((lane) =>
      ROOMS.flatMap((room) => [
        spec('consumer', room, lane, mgmt),
        spec('producer', room, lane, mgmt)
      ])
    )
    for (const plan of planJavaWorkers(all)) {
      const workDir = join(runDir, plan.workerId)
      mkdirSync(workDir, { recursive: true })
      const w = new WorkerConnection({
        name: plan.workerId,
        command: workerCommand(plan, workDir),
        logFile: join(workDir, 'worker.log')
      })
      w.on('rows', (r) => rows.push(...r))
      workers.set(plan.workerId, w)
      lanesOf.set(plan.workerId, { room: plan.room, lane: plan.lane })
      for (const s of plan.clients) {
        hostOf.set(s.id, w)
        specs.set(s.id, s)
      }
    }
    expect(workers.size).toBe(2 * JAVA_LANES.length)
    await Promise.all(
      [...workers.entries()].map(async ([id, w]) => {
        const { room, lane } = lanesOf.get(id)!
        const hello = await w.request('hello', { protocol: 1, workerId: id, room })
        expect(hello).toMatchObject({ protocol: 1, runtime: 'java', lanes: [lane] })
      })
    )

    const start = async (id: string): Promise<void> => {
      await request(id, (w) => w.request('client.create', { spec: specs.get(id)! }))
      const { cid } = await request(id, (w) =>
        w.request('client.start', { id, timeoutMs: 30_000 }, 40_000)
      )
      expect(cid).toMatch(new RegExp(`@${specs.get(id)!.room}$`))
    }
    // One lane at a time: twelve clients starting at once on two cores time out their first
    // route queries, which is a fact about this machine, not about the lanes.
    for (const lane of JAVA_LANES) {
      await Promise.all(ROOMS.map((room) => start(consumerId(room, lane))))
    }
    // Settled: every queue owned exactly once; java-zone and java-dr consumers (both
    // AllocateMachineRoomNearby) hold their own room's queues.
    const allQueues = ['broker-a', 'broker-b'].flatMap((b) => [0, 1, 2, 3].map((q) => `${b}/${q}`))
    for (const lane of JAVA_LANES) {
      const held = async (): Promise<string[]> =>
        Object.entries(await assignments(lane))
          .flatMap(([room, qs]) => qs.map((q) => `${room}:${q.brokerName}/${q.queueId}`))
          .sort()
      const settled = (h: string[]): boolean =>
        lane === 'java-zone' || lane === 'java-dr'
          ? h.join() ===
            allQueues.map((q) => `${q.startsWith('broker-a') ? 'room1' : 'room2'}:${q}`).join()
          : h.length === 8 && allQueues.every((q) => h.some((x) => x.endsWith(`:${q}`)))
      const last = await until(held, settled, 60_000)
      expect(settled(last), `${lane} consumers hold ${last.join(', ')}`).toBe(true)
    }
    for (const lane of JAVA_LANES) {
      await Promise.all(ROOMS.map((room) => start(producerId(room, lane))))
    }
    await Promise.all(
      [...workers.values()].map(async (w) => {
        let ids = [...hostOf.entries()]
          .filter(([id, host]) => host === w && id.startsWith('producer-'))
          .map(([id]) => id)
        // A round again for the producers a round left cold: on a cold host the first suite's first
        // sends can take over 550 ms, and java-tuned's latency fault table then keeps that broker
        // away for 30 s, longer than a round (its warm-up counts only sends with nothing isolated).
        let warmed: Record<string, boolean> = {}
        for (let round = 0; round < 3 && ids.length > 0; round++) {
          ;({ warmed } = await w.request(
            'warmup',
            { ids, timeoutMs: 20_000, fastMs: 500, streak: 5, tag: 'warmup' },
            30_000
          ))
          ids = ids.filter((id) => !warmed[id])
        }
        expect(ids, `producers never warmed: ${JSON.stringify(warmed)}`).toEqual([])
      })
    )
    expect(sends()).toEqual([])
  })

  afterAll(async () => {
    await Promise.all([...workers.values()].map((w) => w.shutdown(15_000)))
    // With KEEP_RUN_DIR the rows stay beside the worker logs, for reading a failure afterwards.
    if (process.env.KEEP_RUN_DIR && runDir)
      writeFileSync(join(runDir, 'rows.json'), JSON.stringify(rows))
    await sb.stop({ force: true })
    const left = spawnSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).stdout.trim()
    expect(left).toBe('')
    if (!process.env.KEEP_RUN_DIR) rmSync(dataDir, { recursive: true, force: true })
  })

  it('healthy: java-zone and java-dr sends stay in their room, java reaches both rooms, every ack is delivered', async () => {
    const t0 = Date.now() + 300
    for (const w of workers.values()) {
      const producers = [...hostOf.entries()]
        .filter(([id, host]) => host === w && id.startsWith('producer-'))
        .map(([id]) => ({ id, rate: 20, messageSize: 256, offsetMs: 0 }))
      await w.request('workload.start', { t0, end: null, producers, maxInflight: 32, tag: TAG })
    }
    const enough = (): boolean =>
      [...specs.values()]
        .filter((s) => s.role === 'producer')
        .every((s) => sends(s.id).filter((r) => r.status === 'acked').length >= 40)
    await expect.poll(enough, { timeout: 30_000, interval: 200 }).toBe(true)

    for (const room of ROOMS) {
      const zone = sends(producerId(room, 'java-zone'))
      expect(
        offenders(zone, (s) => s.status === 'acked' && s.brokerRoom === room),
        'java-zone: acknowledged in its room'
      ).toEqual([])
      // The extension: its room's broker, through its room's name server (the management node's list).
      const dr = sends(producerId(room, 'java-dr'))
      expect(
        offenders(dr, (s) => s.status === 'acked'),
        'java-dr: acknowledged'
      ).toEqual([])
      // Its own room's broker first, always; another room's only as the retry of an attempt at
      // home that failed, or while the home broker is isolated after failures (on this loaded
      // host a request now and then outlives its 1 s cap, twice: the extension then isolates it).
      const isolatedAt = events('broker-isolated', producerId(room, 'java-dr')).map((e) => e.atMs)
      const away = dr.filter(
        (s) =>
          s.brokerRoom !== room && s.attempts === 1 && !isolatedAt.some((t) => t <= s.startedAt)
      )
      expect(
        away.map((s) => s.key),
        'first attempts in another room, home not isolated'
      ).toEqual([])
      expect(
        offenders(dr, (s) => s.namesrvRoom === room),
        "java-dr: its room's name server"
      ).toEqual([])
      for (const lane of ['java', 'java-tuned'] as const) {
        const id = producerId(room, lane)
        const rooms = new Set(sends(id).map((s) => s.brokerRoom))
        if (lane === 'java-tuned' && rooms.size === 1) {
          // sendLatencyFaultEnable: one answer slower than 550 ms keeps its broker away for 30 s
          // (the stock strategy's table), which this loaded host produces now and then (a clean
          // clone's run sent all of one producer's sends to room 2). Then the other broker is the
          // one the strategy avoids now, not a route that lacks it.
          const other = rooms.has('room1') ? 'broker-b' : 'broker-a'
          const { clients } = await request(id, (w) => w.request('client.state', { ids: [id] }))
          expect(clients[0]?.isolated, `${id}: one room only, ${other} not avoided`).toContain(
            other
          )
          continue
        }
        expect([...rooms].sort(), id).toEqual(['room1', 'room2'])
      }
      const mine = sends(producerId(room, 'java'))
      // One attempt, unless one failed on record: a loaded broker answers SYSTEM_BUSY now and then
      // (its send queue waited too long) and the stock client retries it, as it should.
      const failedAttempts = new Map<string, number>()
      for (const e of events('send-attempt-failed', producerId(room, 'java'))) {
        const key = String(e.data.key)
        failedAttempts.set(key, (failedAttempts.get(key) ?? 0) + 1)
      }
      expect(
        offenders(
          mine,
          (s) =>
            s.attempts === 1 + (failedAttempts.get(s.key) ?? 0) && s.scheduledAt! <= s.startedAt + 1
        ),
        'java: one attempt beside each failed one on record, started on schedule'
      ).toEqual([])
      // The address server (the room's management node) gave it a name server it can name.
      expect(
        offenders(mine, (s) => s.namesrvId === 'ns-1' || s.namesrvId === 'ns-2'),
        'java: a name server it can name'
      ).toEqual([])
    }
    await expect.poll(undelivered, { timeout: 30_000, interval: 250 }).toEqual([])
    expect(deliveries().some((d) => d.key.includes('-warmup-'))).toBe(false)
    for (const lane of ['java-zone', 'java-dr']) {
      const own = deliveries().filter((d) => d.clientId.endsWith(`-${lane}`))
      expect(own.length, lane).toBeGreaterThan(0)
      expect(
        own.filter((d) => d.brokerRoom !== d.clientRoom),
        `${lane}: consumed in its room`
      ).toEqual([])
    }
    // java-dr's list came from the management node, its own room's name servers only.
    const lists = events('namesrv-list', producerId('room1', 'java-dr'))
    expect(lists[0]?.data).toMatchObject({
      managementRoom: 'room1',
      fallback: false,
      inUse: [expect.any(String)],
      reason: 'same-room'
    })
  })

  it('a crashed producer is skipped as down, and picked up by id when created again', async () => {
    const id = producerId('room2', 'java')
    await request(id, (w) => w.request('client.stop', { id, mode: 'crash' }))
    expect(events('client-stopped', id).map((e) => e.data.mode)).toEqual(['crash'])
    await expect
      .poll(() => events('sends-skipped', id).reduce((n, e) => n + Number(e.data.down), 0), {
        timeout: 10_000
      })
      .toBeGreaterThan(0)
    await request(id, (w) => w.request('client.remove', { id }))
    const restartedAt = Date.now()
    await request(id, (w) => w.request('client.create', { spec: specs.get(id)! }))
    await request(id, (w) => w.request('client.start', { id, timeoutMs: 30_000 }, 40_000))
    await expect
      .poll(
        () => sends(id).filter((s) => s.status === 'acked' && s.startedAt > restartedAt).length,
        { timeout: 20_000 }
      )
      .toBeGreaterThan(5)
    expect(events('client-started', id)).toHaveLength(2)
  })

  it("a crashed consumer says no goodbye: its room's peer takes its queues, it delivers nothing after", async () => {
    const id = consumerId('room2', 'java-tuned')
    const peer = consumerId('room1', 'java-tuned')
    await request(id, (w) => w.request('client.stop', { id, mode: 'crash' }))
    const crashedAt = events('client-stopped', id).at(-1)!.atMs
    // The broker sees the sockets close and tells the peer, which rebalances onto all 8 queues.
    await expect
      .poll(async () => (await assignments('java-tuned'))['room1']!.length, { timeout: 30_000 })
      .toBe(8)
    expect(deliveries().filter((d) => d.clientId === id && d.deliveredAt > crashedAt)).toEqual([])
    await expect
      .poll(
        () => deliveries().filter((d) => d.clientId === peer && d.brokerName === 'broker-b').length,
        {
          timeout: 20_000
        }
      )
      .toBeGreaterThan(0)
    await request(id, (w) => w.request('client.remove', { id }))
    await request(id, (w) => w.request('client.create', { spec: specs.get(id)! }))
    await request(id, (w) => w.request('client.start', { id, timeoutMs: 30_000 }, 40_000))
    await expect
      .poll(async () => (await assignments('java-tuned'))['room2']!.length, { timeout: 30_000 })
      .toBeGreaterThan(0)
  })

  it('room 1 broker killed: java and java-dr fail over room1 → room2, java-zone has no fallback, nothing acknowledged is lost; so does the example application', async () => {
    // examples/java-dr-app, as a user runs it against a sandbox: room 1, both management nodes.
    const example = startExample(
      ROOMS.map((room, i) => `${room}=http://${sb.node(`mgmt-${i + 1}`).address}`).join(',')
    )
    await expect
      .poll(() => example.lines.filter((l) => /^sent .* broker=broker-a /.test(l)).length, {
        timeout: 30_000,
        message: `the example sent nothing to broker-a:\n${example.lines.join('\n')}`
      })
      .toBeGreaterThan(5)
    const killedAt = Date.now()
    await sb.act('broker-1', 'kill')
    const failovers = (lane: JavaLane): EventRow[] =>
      events('broker-failover', producerId('room1', lane)).filter((e) => e.atMs >= killedAt)
    for (const lane of ['java', 'java-tuned', 'java-dr'] as const) {
      const id = producerId('room1', lane)
      const failedOnA = (): EventRow[] =>
        events('send-attempt-failed', id).filter(
          (e) => e.data.brokerName === 'broker-a' && e.atMs >= killedAt
        )
      const ackedOnBSinceKill = (): number =>
        sends(id).filter(
          (s) => s.status === 'acked' && s.brokerName === 'broker-b' && s.startedAt >= killedAt
        ).length
      // java-tuned and java-dr poll routes every second (and java-tuned skips a broker that
      // answered slowly): when a poll dropped broker-a before any send reached it, nothing failed
      // and there is nothing to fail over from. Stock java does neither.
      const settled = (): boolean =>
        failovers(lane).length > 0 ||
        (lane !== 'java' && failedOnA().length === 0 && ackedOnBSinceKill() >= 40)
      await expect
        .poll(settled, { timeout: 20_000, interval: 200, message: `${lane}: no failover` })
        .toBe(true)
      if (failovers(lane).length === 0) {
        expect(failedOnA(), `${lane} failed on broker-a without failing over`).toEqual([])
        expect(
          sends(id).filter((s) => s.startedAt >= killedAt && s.brokerName === 'broker-a'),
          `${lane} sent to the dead broker-a`
        ).toEqual([])
        continue
      }
      const f = failovers(lane)[0]!
      expect(f.data).toMatchObject({
        from: 'broker-a',
        fromRoom: 'room1',
        to: 'broker-b',
        toRoom: 'room2'
      })
      expect(f.data.durationMs).toBeGreaterThanOrEqual(0)
      // The success that ended it went to room 2; the failure it ends was an attempt on broker-a.
      // (The event may arrive a frame before the send's row.)
      await expect
        .poll(() => sends().find((s) => s.key === f.data.key))
        .toMatchObject({
          status: 'acked',
          brokerName: 'broker-b',
          brokerRoom: 'room2'
        })
      // Which failure it ends: the attempt on broker-a that started when the failover's clock did
      // (a 300 ms java-tuned timeout may fail just before the kill lands; the kill keeps it away).
      const failedFrom = f.atMs - (f.data.durationMs as number)
      const failed = events('send-attempt-failed', producerId('room1', lane))
      const starts = failed.map((e) => [e.data.brokerName, e.data.startMs as number] as const)
      expect(
        starts.some(
          ([broker, start]) => broker === 'broker-a' && Math.abs(start - failedFrom) < 50
        ),
        `a failed attempt on broker-a started at ${failedFrom}: ${JSON.stringify(starts)}`
      ).toBe(true)
    }
    // Zone mode is a strict filter: room 1's java-zone producer fails rather than leave its room.
    const zone = producerId('room1', 'java-zone')
    await expect
      .poll(
        () => sends(zone).filter((s) => s.status === 'failed' && s.startedAt >= killedAt).length,
        {
          timeout: 20_000
        }
      )
      .toBeGreaterThan(0)
    expect(sends(zone).every((s) => s.status === 'failed' || s.brokerRoom === 'room1')).toBe(true)

    // The example left room 1 for room 2 and lost no send on the way.
    await expect
      .poll(() => example.lines.some((l) => /^sent .* broker=broker-b /.test(l)), {
        timeout: 10_000
      })
      .toBe(true)
    const summary = await example.exited
    expect(summary, example.lines.join('\n')).toMatch(/^summary sent=\d+ failed=0 received=[1-9]/)
    expect(example.lines.filter((l) => l.startsWith('nameservers'))[0]).toContain('same-room')
    expect(
      example.lines.some(
        (l) => l === 'failover broker-a (room1) -> broker-b (room2)' || /^isolated broker-a/.test(l)
      )
    ).toBe(true)

    await sb.act('broker-1', 'start')
    const stopped = await Promise.all(
      [...workers.values()].map((w) => w.request('workload.stop', { waitMs: 10_000 }, 20_000))
    )
    // Open loop: every due send was either made (one row) or counted as skipped.
    for (const { skipped, scheduled } of stopped) {
      for (const [id, n] of Object.entries(scheduled)) {
        const s = skipped[id]!
        expect(sends(id).length + s.down + s.inflightCap).toBe(n)
      }
    }
    await expect.poll(undelivered, { timeout: 120_000, interval: 500 }).toEqual([])
    const keys = sends().map((s) => s.key)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
