/** Thrown for user input DR Studio cannot use; the message names the input and the fix. */
export class AttachInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AttachInputError'
  }
}

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/

/** Splits `host:port` or `[v6]:port`; undefined when it is neither. */
export function splitHostPort(address: string): { host: string; port: number } | undefined {
  const m = HOST_PORT.exec(address.trim())
  if (!m) return undefined
  const port = Number(m[2])
  if (port < 1 || port > 65535) return undefined
  const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!
  return { host, port }
}

/**
 * Parses a name-server list as RocketMQ writes it (`host:port;host:port`); commas and spaces are
 * accepted too. Duplicates are dropped, order is kept: it is the order clients will try them.
 */
export function parseNamesrvList(text: string, what = '--namesrv'): string[] {
  const out: string[] = []
  for (const raw of text.split(/[;,\s]+/)) {
    const entry = raw.trim()
    if (!entry) continue
    if (!splitHostPort(entry)) {
      throw new AttachInputError(
        `${what}: "${entry}" is not host:port; write the list as RocketMQ does, e.g. "10.0.0.1:9876;10.0.0.2:9876"`
      )
    }
    if (!out.includes(entry)) out.push(entry)
  }
  return out
}

/**
 * The URL RocketMQ's address-server clients fetch (MixAll.getWSAddr): a full http(s) URL is used
 * as given; `host:port` gets `/rocketmq/nsaddr`; a bare host gets port 8080 like RocketMQ's.
 */
export function addressServerUrl(input: string): string {
  const value = input.trim()
  if (/^https?:\/\//i.test(value)) {
    try {
      return new URL(value).toString()
    } catch {
      throw new AttachInputError(
        `--address-server: "${value}" is not a URL; e.g. http://10.0.0.9:8080/rocketmq/nsaddr`
      )
    }
  }
  if (splitHostPort(value)) return `http://${value}/rocketmq/nsaddr`
  if (/^[A-Za-z0-9_.-]+$/.test(value)) return `http://${value}:8080/rocketmq/nsaddr`
  throw new AttachInputError(
    `--address-server: "${value}" is neither a URL nor host[:port]; e.g. http://10.0.0.9:8080/rocketmq/nsaddr`
  )
}

/** Reads an address server's answer: text up to the first line break, `ip:port;ip:port`. */
export function parseAddressServerBody(body: string, url: string): string[] {
  const line = body.trim().split(/\r|\n/)[0] ?? ''
  if (!line) {
    throw new AttachInputError(
      `address server ${url} answered with an empty list; check that it serves the cluster's name servers`
    )
  }
  return parseNamesrvList(line, `address server ${url}`)
}
