import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { topologySchema } from '../../../common/topology'
import {
  afterConfirmation,
  cliActionGate,
  confirmationText,
  needsConfirmation
} from '../../../common/topology/action-policy'
import { describeActionResult, runActionCommand } from './action-runner'
import {
  ATTACHED_DEFAULT_RATE,
  ATTACHED_TOTAL_CAP,
  decideRates,
  isDrStudioGroup,
  runConsumerGroup
} from '../../../common/scenario/workload-safety'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-actions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('runActionCommand (real sh)', () => {
  it('runs the command, appends output and result to the node log, keeps the last lines', async () => {
    const log = join(dir, 'logs', 'broker-a.log')
    const r = await runActionCommand({
      nodeId: 'broker-a',
      action: 'kill',
      command: 'echo one; echo two >&2; echo "$DRSTUDIO_TEST"',
      logFile: log,
      env: { DRSTUDIO_TEST: 'three' }
    })
    expect(r).toMatchObject({ ok: true, exitCode: 0, signal: null, timedOut: false })
    // stdout and stderr are two pipes: their relative order is not defined.
    expect([...r.lastLines].sort()).toEqual(['one', 'three', 'two'])
    const text = readFileSync(log, 'utf8')
    expect(text).toMatch(/--- \S+ kill broker-a: echo one;/)
    expect(text).toContain('one\n')
    expect(text).toMatch(/--- kill broker-a: `echo one; .*` exited 0 after \d+ ms\n$/)
    await runActionCommand({
      nodeId: 'broker-a',
      action: 'start',
      command: 'echo again',
      logFile: log
    })
    expect(readFileSync(log, 'utf8')).toContain('again')
    expect(readFileSync(log, 'utf8')).toContain('one\n')
  })

  it('reports a failing command with its exit code and output', async () => {
    const r = await runActionCommand({
      nodeId: 'ns-1',
      action: 'stop',
      command: 'echo "ssh: connect to host 10.0.0.1 port 22: Connection refused" >&2; exit 255',
      logFile: join(dir, 'ns-1.log')
    })
    expect(r).toMatchObject({ ok: false, exitCode: 255, timedOut: false })
    expect(describeActionResult(r)).toMatch(
      /^stop ns-1: `.*` exited 255 after \d+ ms: ssh: connect to host 10\.0\.0\.1 port 22: Connection refused$/
    )
  })

  it('kills the whole process group on timeout, children included', async () => {
    const pidFile = join(dir, 'child.pid')
    const r = await runActionCommand({
      nodeId: 'broker-a',
      action: 'restart',
      command: `sleep 30 & echo $! > ${pidFile}; echo started; wait`,
      logFile: join(dir, 'timeout.log'),
      timeoutMs: 300
    })
    expect(r).toMatchObject({ ok: false, timedOut: true, lastLines: ['started'] })
    expect(describeActionResult(r)).toContain('timed out after')
    const child = Number(readFileSync(pidFile, 'utf8'))
    await expect.poll(() => alive(child), { timeout: 5000 }).toBe(false)
  })

  it('still runs and resolves when the log cannot be written', async () => {
    const notADir = join(dir, 'plain-file')
    writeFileSync(notADir, 'x')
    const marker = join(dir, 'ran')
    const r = await runActionCommand({
      nodeId: 'x',
      action: 'kill',
      command: `touch ${marker}`,
      logFile: join(notADir, 'x.log')
    })
    expect(r.ok).toBe(true)
    expect(existsSync(marker)).toBe(true)
  })
})

const topo = topologySchema.parse({
  kind: 'drstudio/topology',
  version: 1,
  name: 't',
  rooms: [
    {
      id: 'room1',
      nameServers: [{ id: 'ns-1', host: '10.0.0.1', port: 9876 }, { id: 'ns-own' }],
      brokers: [
        {
          id: 'broker-a',
          brokerName: 'broker-a',
          role: 'master',
          brokerId: 0,
          host: '10.0.0.2',
          port: 10911,
          actions: { kill: 'ssh {host} sudo systemctl kill -s KILL rmq-broker' }
        }
      ],
      consumers: [{ id: 'c1', topic: 't', group: 'g' }]
    }
  ]
})

describe('action policies', () => {
  it('asks before the first destructive action of a session only', () => {
    let session = { confirmed: false }
    expect(needsConfirmation('resume', session)).toBe(false)
    expect(needsConfirmation('start', session)).toBe(false)
    for (const a of ['kill', 'pause', 'restart', 'stop'] as const)
      expect(needsConfirmation(a, session)).toBe(true)
    expect(afterConfirmation(session, 'kill', 'cancel')).toBe(session)
    expect(afterConfirmation(session, 'start', 'confirm')).toBe(session)
    session = afterConfirmation(session, 'kill', 'confirm')
    expect(needsConfirmation('kill', session)).toBe(false)
    expect(needsConfirmation('stop', session)).toBe(false)
  })

  it('words the confirmation with the node, its address and the command', () => {
    expect(
      confirmationText({ id: 'broker-a', address: '10.0.0.2:10911' }, 'kill', 'ssh 10.0.0.2 x')
    ).toEqual({
      title: 'Kill broker-a on your cluster?',
      message:
        "broker-a (10.0.0.2:10911) is not DR Studio's: this runs your command `ssh 10.0.0.2 x`. DR Studio will not ask again this session.",
      confirmLabel: 'Run kill'
    })
  })

  it('lets a headless run act on attached nodes only with --allow-actions', () => {
    const planned = [{ action: 'kill' as const, nodeId: 'broker-a' }]
    expect(cliActionGate(topo, planned, true)).toEqual({ ok: true })
    expect(cliActionGate(topo, planned, false)).toEqual({
      ok: false,
      message:
        'the scenario would run your commands on your cluster (kill broker-a); pass --allow-actions to let it'
    })
    expect(
      cliActionGate(
        topo,
        [
          { action: 'kill', nodeId: 'ns-own' },
          { action: 'kill', nodeId: 'c1' }
        ],
        false
      )
    ).toEqual({ ok: true })
  })

  it('refuses a step on an attached node without a command for it, whatever the flag', () => {
    const r = cliActionGate(
      topo,
      [
        { action: 'pause', nodeId: 'broker-a' },
        { action: 'stop', nodeId: 'ns-1' }
      ],
      true
    )
    expect(r).toEqual({
      ok: false,
      message:
        'the scenario would pause broker-a, stop ns-1, but the topology has no command for them; add "actions": {"pause": "…"} to the node (or to its room\'s actions) with your own command'
    })
  })
})

describe('workload safety', () => {
  const producers = [
    { id: 'p1', rate: 100 },
    { id: 'p2', rate: 10 }
  ]

  it('leaves sandbox runs alone', () => {
    expect(decideRates({ producers, attached: false }).rates).toEqual(producers)
  })

  it('uses an explicit rate as given, even on an attached cluster', () => {
    const d = decideRates({ producers, attached: true, explicitRate: 200 })
    expect(d.rates.map((r) => r.rate)).toEqual([200, 200])
    expect(d.capped).toBe(false)
  })

  it('starts attached producers at the low default', () => {
    const d = decideRates({ producers, attached: true })
    expect(d.rates.map((r) => r.rate)).toEqual([ATTACHED_DEFAULT_RATE, ATTACHED_DEFAULT_RATE])
    expect(d).toMatchObject({
      capped: false,
      note: 'attached cluster: 5 msg/s per producer; set workload.rate to choose another rate'
    })
  })

  it('caps the total of many attached producers', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}`, rate: 10 }))
    const d = decideRates({ producers: many, attached: true })
    expect(d.rates.every((r) => r.rate === ATTACHED_TOTAL_CAP / 20)).toBe(true)
    expect(d.capped).toBe(true)
    expect(d.note).toContain('20 producers share a cap of 50 msg/s')
  })

  it('names run groups so they never collide with production groups', () => {
    expect(runConsumerGroup(42)).toBe('drstudio-run-42')
    expect(runConsumerGroup(42, 'grpc')).toBe('drstudio-run-42-grpc')
    expect(isDrStudioGroup('drstudio-run-42')).toBe(true)
    expect(isDrStudioGroup('payments-consumers')).toBe(false)
  })
})
