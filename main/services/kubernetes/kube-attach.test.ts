import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { WorkerConnection } from '../workers/worker-connection'
import { roomWorkerEntry } from '../workers/worker-launcher'
import type { WorkerCommand } from '../workers/worker-channel'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import { attachWorker, exitCodeFromPodStatus } from './kube-attach'
import { KubeHttp } from './kube-http'

// Over the API-server STAND-IN's pods/attach (WebSocket, v4.channel.k8s.io framing), bridged to a
// REAL room worker process: proves the worker protocol runs over attach; not a real kubelet.

const ROOT = join(import.meta.dirname, '..', '..', '..')
const NAMESPACE = 'drs-attach'
const POD = 'worker-room1-remoting-0'
let standIn: ApiServerStandIn | undefined
let conn: WorkerConnection | undefined
const dir = mkdtempSync(join(tmpdir(), 'drs-attach-'))

afterEach(async () => {
  conn?.kill()
  conn = undefined
  await standIn?.stop()
  standIn = undefined
})

async function attached(command: WorkerCommand, killed: string[] = []) {
  standIn = new ApiServerStandIn({ token: 'tok', zones: ['room1'], attach: () => command })
  const server = await standIn.start()
  standIn.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })
  standIn.seed({ apiVersion: 'v1', kind: 'Pod', metadata: { name: POD, namespace: NAMESPACE } })
  const endpoint = { server, token: 'tok' }
  const api = new KubeHttp(endpoint)
  const podRef = { apiVersion: 'v1', kind: 'Pod', name: POD, namespace: NAMESPACE }
  const channel = attachWorker(endpoint, {
    namespace: NAMESPACE,
    pod: POD,
    container: 'worker',
    kill: () => killed.push(POD),
    exitCode: exitCodeFromPodStatus(() => api.get(podRef), 'worker', { attempts: 3, delayMs: 20 })
  })
  conn = new WorkerConnection({
    name: 'worker-room1',
    channel,
    logFile: join(dir, 'worker.log'),
    requestTimeoutMs: 20_000
  })
  return conn
}

describe('a room worker over the API server attach stream (stand-in)', () => {
  it(
    'answers hello through the framed protocol and exits cleanly on shutdown',
    { timeout: 60_000 },
    async () => {
      const entry = roomWorkerEntry(ROOT, { preferBuilt: false })
      const worker = await attached({
        argv: [entry.command, ...entry.args],
        env: { ...process.env, ...entry.env }
      })
      const hello = await worker.request(
        'hello',
        { protocol: 1, workerId: 'worker-room1', room: 'room1' },
        30_000
      )
      expect(hello.runtime).toBe('node')
      expect(hello.lanes).toContain('remoting')
      expect(hello.pid).toBeGreaterThan(0)
      const exit = await worker.shutdown(10_000)
      expect(exit).toEqual({ code: 0, signal: null, expected: true })
      expect(standIn!.requests.find((r) => r.method === 'ATTACH')?.path).toBe(
        `/api/v1/namespaces/${NAMESPACE}/pods/${POD}/attach?container=worker&stdin=true&stdout=true&stderr=true`
      )
    }
  )

  it("reads the worker's exit code from its pod (attach itself ends with Success), keeps its stderr and fails what was pending", async () => {
    const script = join(dir, 'dies.cjs')
    writeFileSync(
      script,
      "process.stderr.write('broker unreachable\\n'); process.stdin.once('data', () => process.exit(7))"
    )
    const worker = await attached({ argv: [process.execPath, script] })
    await expect(worker.request('client.state', {})).rejects.toThrow(
      /worker-room1 exited with code 7/
    )
    expect((await worker.exited).code).toBe(7)
    await expect
      .poll(() => readFileSync(join(dir, 'worker.log'), 'utf8'))
      .toContain('broker unreachable')
  })

  it('kill deletes the pod through the given hook and reports a kill', async () => {
    const script = join(dir, 'idle.cjs')
    writeFileSync(script, 'setInterval(() => {}, 1000)')
    const killed: string[] = []
    const worker = await attached({ argv: [process.execPath, script] }, killed)
    worker.kill()
    const exit = await worker.exited
    expect(exit.signal).toBe('SIGKILL')
    expect(killed).toEqual([POD])
  })

  it('says why it could not attach (a pod that does not exist)', async () => {
    standIn = new ApiServerStandIn({
      token: 'tok',
      zones: ['room1'],
      attach: () => ({ argv: ['true'] })
    })
    const server = await standIn.start()
    const channel = attachWorker(
      { server, token: 'tok' },
      { namespace: NAMESPACE, pod: 'gone-0', container: 'worker' }
    )
    conn = new WorkerConnection({ name: 'worker-room1', channel, logFile: join(dir, 'gone.log') })
    await expect(conn.request('hello', { protocol: 1, workerId: 'w', room: null })).rejects.toThrow(
      /worker-room1 could not be started, or its stream was cut/
    )
    await expect
      .poll(() => readFileSync(join(dir, 'gone.log'), 'utf8'))
      .toMatch(/cannot attach to pod gone-0 in drs-attach: HTTP 404: pods "gone-0" not found/)
  })
})

process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
