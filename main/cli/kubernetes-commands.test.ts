import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { engineIdentity, stampRun } from '../services/kubernetes/run-labels'
import { ApiServerStandIn } from '../services/kubernetes/fixtures/api-server-stand-in'
import { runKubernetesSweep, runKubernetesUp } from './kubernetes-commands'
import type { StopSignal } from '../services/kubernetes/deployed-topology'
import { processStopSignal } from './stop-signal'
import { runScenarioCommand } from './scenario-command'

const never = (): StopSignal => ({ stopped: new Promise(() => {}), dispose: () => {} })

// Against the API-server STAND-IN (no real cluster here): proves the command's flow and what it
// leaves behind, not scheduling or kubelets.

const TOPOLOGY = 'resources/topologies/two-rooms.json'
let standIn: ApiServerStandIn | undefined
let dir: string | undefined

afterEach(async () => {
  await standIn?.stop()
  standIn = undefined
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function kubeconfig(
  zones = ['room1', 'room2'],
  extra: Partial<ConstructorParameters<typeof ApiServerStandIn>[0]> = {}
): Promise<string> {
  standIn = new ApiServerStandIn({ token: 'tok', zones, autoReady: true, ...extra })
  const server = await standIn.start()
  dir = mkdtempSync(join(tmpdir(), 'drstudio-kube-'))
  const file = join(dir, 'config')
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
current-context: stand-in
clusters: [{ name: c, cluster: { server: "${server}" } }]
users: [{ name: u, user: { token: tok } }]
contexts: [{ name: stand-in, context: { cluster: c, user: u } }]
`
  )
  return file
}

function sink() {
  const lines: string[] = []
  return { lines, out: { write: (s: string) => lines.push(s) } }
}

describe('drstudio kubernetes up (stand-in API server)', { timeout: 30_000 }, () => {
  it('deploys into --namespace, reports ready, and at the stop signal leaves nothing behind', async () => {
    const file = await kubeconfig()
    const { lines, out } = sink()
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    const done = runKubernetesUp(TOPOLOGY, { kubeconfig: file, namespace: 'dr-test' }, out, {
      stopped,
      dispose: () => {}
    })
    await expect.poll(() => lines.join(''), { timeout: 5000 }).toMatch(/every pod ready in/)
    const configMaps = standIn!.all('ConfigMap')
    expect(configMaps.length).toBeGreaterThan(0)
    expect(configMaps.every((c) => c.metadata.namespace === 'dr-test')).toBe(true)
    // The namespace override reaches the files too: in-cluster addresses name it.
    expect(JSON.stringify(configMaps)).toContain('.dr-test.svc')
    expect(JSON.stringify(configMaps)).not.toMatch(/\.drs-[a-z-]+\.svc/)
    stop()
    expect(await done).toBe(0)
    for (const kind of ['Namespace', 'ConfigMap', 'Service', 'StatefulSet', 'Deployment', 'Pod']) {
      expect(standIn!.all(kind), kind).toEqual([])
    }
    expect(lines.join('')).toMatch(
      /^context stand-in \(http:\/\/127\.0\.0\.1:\d+\), namespace dr-test, run r[0-9a-z]+\n/
    )
  })

  it('tears down what it applied when pods never become ready, and exits 1 naming them', async () => {
    // No stand-in node carries room2's zone: its pods cannot be scheduled.
    const file = await kubeconfig(['room1'])
    const { lines, out } = sink()
    const code = await runKubernetesUp(
      TOPOLOGY,
      { kubeconfig: file, readyTimeoutS: 0.3 },
      out,
      never()
    )
    expect(code).toBe(1)
    expect(lines.join('')).toMatch(
      /drstudio: \d+ of \d+ workloads not ready after 0 s: (Deployment|StatefulSet)\/\S+: pod \S+ not scheduled/
    )
    expect(standIn!.all('StatefulSet')).toEqual([])
    expect(standIn!.all('Namespace')).toEqual([])
  })

  it('refuses a namespace name Kubernetes would refuse, before reaching the cluster', async () => {
    await expect(
      runKubernetesUp(
        TOPOLOGY,
        { kubeconfig: '/nonexistent', namespace: 'DR_Test' },
        sink().out,
        never()
      )
    ).rejects.toThrow('--namespace DR_Test: not a Kubernetes namespace name')
  })

  it('names the kubeconfig it could not read and how to point at one', async () => {
    await expect(
      runKubernetesUp(TOPOLOGY, { kubeconfig: '/nonexistent/config' }, sink().out, never())
    ).rejects.toThrow(
      /^\/nonexistent\/config: cannot read the kubeconfig .*; point --kubeconfig or KUBECONFIG at one$/
    )
  })
})

describe('drstudio kubernetes sweep (stand-in API server)', { timeout: 30_000 }, () => {
  it("removes a dead engine's run on this host and leaves a live one", async () => {
    const file = await kubeconfig()
    const ns = 'dr-sweep'
    standIn!.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
    // pid 2^22+1 is above Linux's pid_max: never alive.
    const dead = engineIdentity(hostname(), 4194305)
    const live = engineIdentity(hostname(), process.pid)
    standIn!.seed(
      stampRun(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: ns } },
        'rdead',
        dead
      )
    )
    standIn!.seed(
      stampRun(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns } },
        'rlive',
        live
      )
    )
    const { lines, out } = sink()
    expect(await runKubernetesSweep(TOPOLOGY, { kubeconfig: file, namespace: ns }, out)).toBe(0)
    expect(standIn!.all('ConfigMap').map((c) => c.metadata.name)).toEqual(['b'])
    expect(lines.at(-1)).toBe(`removed runs rdead; left: rlive (engine ${live} still runs)\n`)
  })
})

describe('stopping a Kubernetes command', { timeout: 30_000 }, () => {
  it('exits 130 and removes the run when stopped before the pods were ready', async () => {
    const file = await kubeconfig(['room1'])
    const { lines, out } = sink()
    let stop!: () => void
    const stopped = new Promise<void>((r) => (stop = r))
    const done = runKubernetesUp(TOPOLOGY, { kubeconfig: file }, out, {
      stopped,
      dispose: () => {}
    })
    await expect.poll(() => lines.join(''), { timeout: 5000 }).toMatch(/ready \d+\/\d+; waiting/)
    stop()
    expect(await done).toBe(130)
    expect(standIn!.all('StatefulSet')).toEqual([])
    expect(lines.join('')).not.toMatch(/drstudio: /)
  })

  it('the first Ctrl-C stops; a later one says the run is still being removed', async () => {
    const { lines, out } = sink()
    const before = process.listenerCount('SIGINT')
    const signal = processStopSignal(out)
    process.emit('SIGINT')
    await signal.stopped
    process.emit('SIGINT')
    expect(lines).toEqual([
      'still removing the run; if this process is killed, `drstudio kubernetes sweep` removes it later\n'
    ])
    signal.dispose()
    expect(process.listenerCount('SIGINT')).toBe(before)
  })
})

describe('drstudio scenario run --on kubernetes (stand-in API server)', { timeout: 30_000 }, () => {
  it('refuses a cluster without Chaos Mesh before creating anything when the scenario cuts links, and exits 2 naming the fix', async () => {
    const file = await kubeconfig()
    const data = mkdtempSync(join(tmpdir(), 'drstudio-kube-data-'))
    const err = sink()
    try {
      const code = await runScenarioCommand('resources/scenarios/room1-isolated.yaml', {
        dataDir: data,
        stderr: err.out as unknown as NodeJS.WritableStream,
        stdout: sink().out as unknown as NodeJS.WritableStream,
        kubernetes: { kubeconfig: file, readyTimeoutS: 5 }
      })
      expect(code).toBe(2)
      expect(err.lines.join('')).toMatch(
        /could not run on Kubernetes: context stand-in does not serve chaos-mesh\.org\/v1alpha1 \(Chaos Mesh is not installed\): install Chaos Mesh 2\.8 or later/
      )
      expect(standIn!.all('StatefulSet')).toEqual([])
      expect(standIn!.requests.filter((r) => r.method === 'POST')).toEqual([])
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  })
})
