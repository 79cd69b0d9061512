import { spawn } from 'node:child_process'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import type { ApiServerStandInOptions } from './fixtures/api-server-stand-in'
import { ApiServerStandIn } from './fixtures/api-server-stand-in'
import { execInPod, exitCodeOfStatus } from './kube-exec'
import { KubeHttp } from './kube-http'
import { PodTunnel } from './kube-port-forward'

// Over the API-server STAND-IN's pods/exec and pods/portforward (WebSocket, v4.channel.k8s.io
// framing): exec runs the test's handler, which signals a REAL local process; port-forward reaches
// a REAL local TCP server. Proves the framing, the exit codes, the refusals and the tunnel; not a
// kubelet, a container runtime or a pod network.

const NAMESPACE = 'drs-streams'
const POD = 'broker-a-0'
let standIn: ApiServerStandIn | undefined
let tunnel: PodTunnel | undefined
const servers: Server[] = []

afterEach(async () => {
  await tunnel?.close()
  tunnel = undefined
  await standIn?.stop()
  standIn = undefined
  for (const s of servers.splice(0)) s.close()
})

async function cluster(options: Partial<ApiServerStandInOptions>) {
  standIn = new ApiServerStandIn({ token: 'tok', zones: ['room1'], ...options })
  const server = await standIn.start()
  standIn.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })
  standIn.seed({ apiVersion: 'v1', kind: 'Pod', metadata: { name: POD, namespace: NAMESPACE } })
  return { server, token: 'tok' }
}

/** A TCP server that answers every chunk upper-cased, as a pod's port. */
async function upperCaser(): Promise<string> {
  const server = createServer((s: Socket) =>
    s.on('data', (c) => s.write(c.toString().toUpperCase()))
  )
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

function exchange(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = ''
    socket.on('data', (c: Buffer) => {
      got += c.toString()
      if (got.length >= text.length) resolve(got)
    })
    socket.on('error', reject)
    socket.write(text)
  })
}

describe('exec in a pod (stand-in)', () => {
  it('stops and resumes a real process by the command sent, and reads each exit code from the final Status', async () => {
    const sleeper = spawn('sleep', ['30'])
    const state = () =>
      new Promise<string>((r) =>
        spawn('ps', ['-o', 'stat=', '-p', String(sleeper.pid)]).stdout.on('data', (d: Buffer) =>
          r(d.toString().trim())
        )
      )
    const commands: string[][] = []
    const endpoint = await cluster({
      exec: async (_pod, command) => {
        commands.push(command)
        if (command.join(' ') === 'sh -c kill -STOP -1') sleeper.kill('SIGSTOP')
        else if (command.join(' ') === 'sh -c kill -CONT -1') sleeper.kill('SIGCONT')
        else return { code: 2, stderr: `${command[0]}: not found` }
        return { code: 0, stdout: 'ok\n' }
      }
    })
    const target = { namespace: NAMESPACE, pod: POD, container: 'broker' }
    try {
      expect(await execInPod(endpoint, target, ['sh', '-c', 'kill -STOP -1'])).toEqual({
        code: 0,
        stdout: 'ok\n',
        stderr: ''
      })
      expect(await state()).toMatch(/^T/)
      expect((await execInPod(endpoint, target, ['sh', '-c', 'kill -CONT -1'])).code).toBe(0)
      expect(await state()).not.toMatch(/^T/)
      const missing = await execInPod(endpoint, target, ['pkill', 'java'])
      expect(missing).toEqual({ code: 2, stdout: '', stderr: 'pkill: not found' })
      expect(commands).toEqual([
        ['sh', '-c', 'kill -STOP -1'],
        ['sh', '-c', 'kill -CONT -1'],
        ['pkill', 'java']
      ])
      expect(standIn!.requests.filter((r) => r.method === 'EXEC')[0]!.path).toBe(
        `/api/v1/namespaces/${NAMESPACE}/pods/${POD}/exec?container=broker&stdout=true&stderr=true&command=sh&command=-c&command=kill+-STOP+-1`
      )
    } finally {
      sleeper.kill('SIGKILL')
    }
  })

  it('names the pod and the API server when the exec is refused', async () => {
    const endpoint = await cluster({ exec: async () => ({ code: 0 }) })
    await expect(
      execInPod(endpoint, { namespace: NAMESPACE, pod: 'gone-0', container: 'broker' }, ['true'])
    ).rejects.toThrow(/cannot exec to pod gone-0 in drs-streams: HTTP 404: pods "gone-0" not found/)
    await expect(
      execInPod(
        { ...endpoint, token: 'wrong' },
        { namespace: NAMESPACE, pod: POD, container: 'broker' },
        ['true']
      )
    ).rejects.toThrow(/HTTP 401/)
  })

  it('reads exit codes as a kubelet writes them', () => {
    expect(exitCodeOfStatus({ status: 'Success' })).toBe(0)
    expect(
      exitCodeOfStatus({
        status: 'Failure',
        details: { causes: [{ reason: 'ExitCode', message: '137' }] }
      })
    ).toBe(137)
    // A Failure without an exit code (the container is gone) still fails.
    expect(exitCodeOfStatus({ status: 'Failure', message: 'container not found' })).toBe(1)
  })
})

describe('the tunnel into the cluster over port-forward (stand-in)', () => {
  it('carries bytes both ways to the pod behind a cluster address, one loopback listener per pod and port', async () => {
    const local = await upperCaser()
    const endpoint = await cluster({
      forward: (pod, port) => (pod.name === POD && port === 10911 ? local : null)
    })
    tunnel = new PodTunnel(endpoint, NAMESPACE, async (host: string) =>
      host === `broker-a.${NAMESPACE}.svc` || host === '10.1.0.7' ? POD : null
    )
    const a = await tunnel.localAddress(`broker-a.${NAMESPACE}.svc`, 10911)
    expect(a).toMatch(/^127\.0\.0\.1:\d+$/)
    // The pod's IP and its DNS name are one pod: one listener.
    expect(await tunnel.localAddress('10.1.0.7', 10911)).toBe(a)
    const socket = await tunnel.dial('10.1.0.7', 10911)
    expect(await exchange(socket, 'hello broker')).toBe('HELLO BROKER')
    // A second connection is a second stream.
    const again = await tunnel.dial(`broker-a.${NAMESPACE}.svc`, 10911)
    expect(await exchange(again, 'two')).toBe('TWO')
    socket.destroy()
    again.destroy()
    expect(standIn!.requests.filter((r) => r.method === 'PORTFORWARD')).toHaveLength(2)
    expect(standIn!.requests.find((r) => r.method === 'PORTFORWARD')!.path).toBe(
      `/api/v1/namespaces/${NAMESPACE}/pods/${POD}/portforward?ports=10911`
    )
  })

  it("refuses an address that is not the run's, and reports the kubelet's error for a port nothing serves", async () => {
    const endpoint = await cluster({ forward: () => null })
    const errors: string[] = []
    tunnel = new PodTunnel(
      endpoint,
      NAMESPACE,
      async (host: string) => (host === 'ns-1' ? POD : null),
      (e) => errors.push(e)
    )
    await expect(tunnel.localAddress('10.9.9.9', 9876)).rejects.toThrow(
      /10\.9\.9\.9:9876 is not an address of this run's pods in namespace drs-streams/
    )
    const socket = await tunnel.dial('ns-1', 9876)
    await new Promise<void>((r) => socket.on('close', () => r()))
    expect(errors.join('\n')).toMatch(
      /port 9876 of pod broker-a-0 in drs-streams: failed to connect to localhost:9876 inside pod: connection refused/
    )
    await tunnel.close()
    await expect(tunnel.localAddress('ns-1', 9876)).rejects.toThrow(/closed/)
  })
})

describe('scaling a workload and killing its pod (stand-in)', () => {
  it('scale to zero ends the pod, back to one schedules a new one; a grace period of 0 deletes at once', async () => {
    const endpoint = await cluster({ autoReady: true, podGraceMs: 60_000 })
    const api = new KubeHttp(endpoint)
    const set = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: 'broker-a',
      namespace: NAMESPACE
    }
    await api.create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'broker-a', namespace: NAMESPACE },
      spec: { template: { metadata: { labels: { 'drstudio.io/node': 'broker-a' } }, spec: {} } }
    })
    const pod = { apiVersion: 'v1', kind: 'Pod', name: 'broker-a-0', namespace: NAMESPACE }
    const uid = (await api.get(pod))!.metadata as { uid?: string }
    await api.scale(set, 0)
    // Terminating, held by its grace period, until the kill's grace 0 removes it.
    expect((await api.get(pod))!.metadata.deletionTimestamp).toBeDefined()
    await api.remove(pod, { gracePeriodSeconds: 0 })
    expect(await api.get(pod)).toBeNull()
    await api.scale(set, 1)
    const back = await api.get(pod)
    expect((back!.metadata as { uid?: string }).uid).not.toBe(uid.uid)
    expect((back!.status as { phase?: string }).phase).toBe('Running')
    const patch = standIn!.requests.find((r) => r.method === 'PATCH')!
    expect(patch).toEqual({
      method: 'PATCH',
      path: `/apis/apps/v1/namespaces/${NAMESPACE}/statefulsets/broker-a/scale?fieldManager=drstudio`,
      contentType: 'application/merge-patch+json'
    })
    await expect(api.scale({ ...set, name: 'nope' }, 1)).rejects.toThrow(
      /could not scale StatefulSet\/nope in namespace drs-streams to 1: HTTP 404/
    )
  })
})
