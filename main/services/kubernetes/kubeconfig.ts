import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import { parse } from 'yaml'
import type { KubeEndpoint } from './kube-http'

/** A kubeconfig context resolved to what a run needs: the endpoint and the default namespace. */
export interface KubeContext {
  name: string
  namespace?: string
  endpoint: KubeEndpoint
}

interface Named<T> {
  name: string
  [k: string]: unknown
  value?: T
}

interface ExecConfig {
  apiVersion?: string
  command: string
  args?: string[]
  env?: { name: string; value: string }[]
}

interface UserEntry {
  token?: string
  tokenFile?: string
  'client-certificate'?: string
  'client-certificate-data'?: string
  'client-key'?: string
  'client-key-data'?: string
  exec?: ExecConfig
}

interface ClusterEntry {
  server?: string
  'certificate-authority'?: string
  'certificate-authority-data'?: string
  'insecure-skip-tls-verify'?: boolean
}

/** Reads files a kubeconfig names (relative to the kubeconfig's folder); tests pass their own. */
export interface KubeconfigIo {
  readFile(path: string): Buffer
  /** Runs an exec credential plugin; resolves to its standard output. */
  exec(command: string, args: string[], env: Record<string, string>): Promise<string>
}

const systemIo: KubeconfigIo = {
  readFile: (p) => readFileSync(p),
  exec: (command, args, env) =>
    new Promise((resolve, reject) =>
      execFile(
        command,
        args,
        { env: { ...process.env, ...env }, timeout: 30_000 },
        (err, stdout, stderr) =>
          err
            ? reject(new Error(`${command} failed: ${String(stderr).trim() || err.message}`))
            : resolve(stdout)
      )
    )
}

/** `--kubeconfig`, else `$KUBECONFIG`'s first file, else `~/.kube/config`. */
export function kubeconfigPath(given?: string): string {
  if (given) return given
  const env = process.env.KUBECONFIG?.split(delimiter).find(Boolean)
  return env ?? join(homedir(), '.kube', 'config')
}

function entries<T>(doc: Record<string, unknown>, key: string, field: string): Map<string, T> {
  const list = Array.isArray(doc[key]) ? (doc[key] as Named<T>[]) : []
  return new Map(list.map((e) => [String(e.name), (e[field] ?? {}) as T]))
}

/**
 * Resolves a context of a kubeconfig (the current one when none is named) to an endpoint.
 * Tokens, token files, client certificates (inline or files) and exec credential plugins
 * (`client.authentication.k8s.io`, as cloud providers ship) are supported.
 */
export function resolveContext(
  text: string,
  file: string,
  wanted?: string,
  io: KubeconfigIo = systemIo
): KubeContext {
  const doc = (parse(text) ?? {}) as Record<string, unknown>
  const contexts = entries<{ cluster?: string; user?: string; namespace?: string }>(
    doc,
    'contexts',
    'context'
  )
  const name = wanted ?? (doc['current-context'] as string | undefined)
  if (!name) {
    throw new Error(
      `${file} has no current context; name one with --context (${[...contexts.keys()].join(', ') || 'none defined'})`
    )
  }
  const context = contexts.get(name)
  if (!context) {
    throw new Error(
      `${file} has no context "${name}"; it has ${[...contexts.keys()].join(', ') || 'none'}`
    )
  }
  const cluster = entries<ClusterEntry>(doc, 'clusters', 'cluster').get(context.cluster ?? '')
  if (!cluster?.server) {
    throw new Error(
      `${file}: context "${name}" names cluster "${context.cluster}", which has no server`
    )
  }
  const user = entries<UserEntry>(doc, 'users', 'user').get(context.user ?? '') ?? {}
  const base = dirname(file)
  const read = (p: string) => io.readFile(isAbsolute(p) ? p : join(base, p))
  const data = (inline: string | undefined, path: string | undefined) =>
    inline ? Buffer.from(inline, 'base64') : path ? read(path) : undefined
  const ca = data(cluster['certificate-authority-data'], cluster['certificate-authority'])
  const cert = data(user['client-certificate-data'], user['client-certificate'])
  const key = data(user['client-key-data'], user['client-key'])
  const token =
    user.token ?? (user.tokenFile ? read(user.tokenFile).toString('utf8').trim() : undefined)
  const endpoint: KubeEndpoint = {
    server: cluster.server,
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(token ? { token } : {}),
    ...(user.exec ? { token: execToken(user.exec, name, io) } : {}),
    ...(cluster['insecure-skip-tls-verify'] ? { insecureSkipTlsVerify: true } : {})
  }
  return { name, ...(context.namespace ? { namespace: context.namespace } : {}), endpoint }
}

/** An exec plugin's token, cached until the expiry it states (or for a minute); one run at a time. */
function execToken(exec: ExecConfig, context: string, io: KubeconfigIo): () => Promise<string> {
  let cached: { token: string; until: number } | undefined
  let running: Promise<string> | undefined
  const run = async (): Promise<string> => {
    const env = {
      ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])),
      // What client-go tells a plugin: no terminal to prompt on.
      KUBERNETES_EXEC_INFO: JSON.stringify({
        apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1',
        kind: 'ExecCredential',
        spec: { interactive: false }
      })
    }
    const out = await io.exec(exec.command, exec.args ?? [], env)
    let status: { token?: string; expirationTimestamp?: string } | undefined
    try {
      status = (JSON.parse(out) as { status?: typeof status }).status
    } catch {
      status = undefined
    }
    if (!status?.token) {
      throw new Error(
        `context "${context}": the credential plugin ${exec.command} gave no status.token (client certificates from plugins are not supported)`
      )
    }
    const expiry = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : NaN
    cached = {
      token: status.token,
      until: Number.isFinite(expiry) ? expiry - 10_000 : Date.now() + 60_000
    }
    return status.token
  }
  return () => {
    if (cached && Date.now() < cached.until) return Promise.resolve(cached.token)
    running ??= run().finally(() => (running = undefined))
    return running
  }
}

/** A kubeconfig's contexts as the app's run target selector lists them. */
export interface KubeContextEntry {
  name: string
  /** The cluster's API server, or null when the context names no cluster with one. */
  server: string | null
  namespace: string | null
  current: boolean
}

/**
 * Every context of a kubeconfig, current one marked; nothing is resolved (no credential plugin
 * runs) until a run picks one. Throws naming the file when it is not YAML.
 */
export function listContexts(text: string, file: string): KubeContextEntry[] {
  let doc: Record<string, unknown>
  try {
    doc = (parse(text) ?? {}) as Record<string, unknown>
  } catch (e) {
    throw new Error(`${file} is not a kubeconfig (${(e as Error).message.split('\n')[0]})`)
  }
  const clusters = entries<ClusterEntry>(doc, 'clusters', 'cluster')
  const current = doc['current-context']
  return [...entries<{ cluster?: string; namespace?: string }>(doc, 'contexts', 'context')].map(
    ([name, c]) => ({
      name,
      server: clusters.get(c.cluster ?? '')?.server ?? null,
      namespace: c.namespace ?? null,
      current: name === current
    })
  )
}

/** The user's kubeconfig's contexts for the app, or why there are none (never throws). */
export function readContexts(path = kubeconfigPath()): {
  kubeconfig: string
  contexts: KubeContextEntry[]
  problem: string | null
} {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT'
    return {
      kubeconfig: path,
      contexts: [],
      problem: missing
        ? `no kubeconfig at ${path}: set KUBECONFIG or create it (kubectl config) to run on Kubernetes`
        : `cannot read ${path}: ${(e as Error).message}`
    }
  }
  try {
    const contexts = listContexts(text, path)
    return {
      kubeconfig: path,
      contexts,
      problem: contexts.length ? null : `${path} defines no contexts`
    }
  } catch (e) {
    return { kubeconfig: path, contexts: [], problem: (e as Error).message }
  }
}
