import { describe, expect, it } from 'vitest'
import { listContexts, resolveContext, type KubeconfigIo } from './kubeconfig'

const KUBECONFIG = `
apiVersion: v1
kind: Config
current-context: lab
clusters:
  - name: lab-cluster
    cluster:
      server: https://10.0.0.1:6443
      certificate-authority-data: ${Buffer.from('CA PEM').toString('base64')}
  - name: cloud-cluster
    cluster:
      server: https://cloud.example:443
      certificate-authority: certs/ca.pem
  - name: broken
    cluster: {}
contexts:
  - name: lab
    context: { cluster: lab-cluster, user: lab-admin, namespace: dr }
  - name: cloud
    context: { cluster: cloud-cluster, user: cloud-user }
  - name: nowhere
    context: { cluster: broken, user: lab-admin }
users:
  - name: lab-admin
    user:
      client-certificate-data: ${Buffer.from('CERT').toString('base64')}
      client-key-data: ${Buffer.from('KEY').toString('base64')}
  - name: cloud-user
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: cloud-auth
        args: [token, --cluster, prod]
        env: [{ name: REGION, value: eu }]
`

function fakeIo(
  stdout = '{"status":{"token":"abc","expirationTimestamp":"2999-01-01T00:00:00Z"}}'
) {
  const calls: { command: string; args: string[]; env: Record<string, string> }[] = []
  const io: KubeconfigIo = {
    readFile: (p) => Buffer.from(`file:${p}`),
    exec: async (command, args, env) => {
      calls.push({ command, args, env })
      return stdout
    }
  }
  return { io, calls }
}

describe('resolveContext', () => {
  it('resolves the current context with inline certificates and its namespace', () => {
    const ctx = resolveContext(KUBECONFIG, '/home/u/.kube/config', undefined, fakeIo().io)
    expect(ctx.name).toBe('lab')
    expect(ctx.namespace).toBe('dr')
    expect(ctx.endpoint.server).toBe('https://10.0.0.1:6443')
    expect(ctx.endpoint.ca?.toString()).toBe('CA PEM')
    expect(ctx.endpoint.cert?.toString()).toBe('CERT')
    expect(ctx.endpoint.key?.toString()).toBe('KEY')
  })

  it('reads files relative to the kubeconfig and runs an exec plugin once per token lifetime', async () => {
    const { io, calls } = fakeIo()
    const ctx = resolveContext(KUBECONFIG, '/home/u/.kube/config', 'cloud', io)
    expect(ctx.endpoint.ca?.toString()).toBe('file:/home/u/.kube/certs/ca.pem')
    const token = ctx.endpoint.token as () => Promise<string>
    expect(await Promise.all([token(), token()])).toEqual(['abc', 'abc'])
    expect(await token()).toBe('abc')
    expect(calls.map((c) => ({ ...c, env: { REGION: c.env.REGION } }))).toEqual([
      { command: 'cloud-auth', args: ['token', '--cluster', 'prod'], env: { REGION: 'eu' } }
    ])
    expect(JSON.parse(calls[0]!.env.KUBERNETES_EXEC_INFO!)).toMatchObject({
      kind: 'ExecCredential',
      spec: { interactive: false }
    })
  })

  it('says when an exec plugin gives no token', async () => {
    const ctx = resolveContext(KUBECONFIG, 'k', 'cloud', fakeIo('{"status":{}}').io)
    await expect((ctx.endpoint.token as () => Promise<string>)()).rejects.toThrow(
      'context "cloud": the credential plugin cloud-auth gave no status.token'
    )
  })

  it('names an unknown context and the ones there are', () => {
    expect(() => resolveContext(KUBECONFIG, 'k', 'prod', fakeIo().io)).toThrow(
      'k has no context "prod"; it has lab, cloud, nowhere'
    )
  })

  it('names a cluster without a server', () => {
    expect(() => resolveContext(KUBECONFIG, 'k', 'nowhere', fakeIo().io)).toThrow(
      'k: context "nowhere" names cluster "broken", which has no server'
    )
  })

  it('asks for --context when there is no current one', () => {
    expect(() =>
      resolveContext(KUBECONFIG.replace('current-context: lab', ''), 'k', undefined, fakeIo().io)
    ).toThrow('k has no current context; name one with --context (lab, cloud, nowhere)')
  })
})

describe('listContexts', () => {
  it('lists every context with its server and namespace, the current one marked, without resolving credentials', () => {
    const text = `apiVersion: v1
kind: Config
current-context: prod
clusters:
  - { name: c1, cluster: { server: "https://10.0.0.1:6443" } }
users:
  - { name: u, user: { exec: { command: /nonexistent/plugin } } }
contexts:
  - { name: prod, context: { cluster: c1, user: u, namespace: dr } }
  - { name: broken, context: { cluster: missing, user: u } }
`
    expect(listContexts(text, '/k')).toEqual([
      { name: 'prod', server: 'https://10.0.0.1:6443', namespace: 'dr', current: true },
      { name: 'broken', server: null, namespace: null, current: false }
    ])
    expect(listContexts('', '/k')).toEqual([])
    expect(() => listContexts('a: [', '/home/me/.kube/config')).toThrow(
      /^\/home\/me\/\.kube\/config is not a kubeconfig \(/
    )
  })
})
