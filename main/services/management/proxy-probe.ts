import { connect } from 'node:http2'

/** Probes one proxy's gRPC endpoint (host:port); resolves when it answers, rejects with the reason. */
export type ProxyProbe = (address: string, timeoutMs: number) => Promise<void>

/** No answer in time: a paused proxy and a merely slow one both give it, unlike a refusal. */
export class ProbeTimeoutError extends Error {
  readonly timedOut = true
}

/**
 * HTTP/2 handshake against the gRPC port: connect with prior knowledge (h2c) and wait for the
 * server's SETTINGS frame. A bare TCP connect is not enough: the kernel completes the handshake for
 * the listen socket of a SIGSTOPped JVM, so a paused proxy would look alive. A proxy accepts
 * plaintext in TLS mode permissive (RocketMQ's default) and disabled (the sandbox's), and this costs
 * one round trip and no RPC.
 */
export const h2SettingsProbe: ProxyProbe = (address, timeoutMs) =>
  new Promise<void>((resolve, reject) => {
    const session = connect(`http://${address}`)
    let settled = false
    const finish = (err?: Error): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      session.destroy()
      if (err) reject(err)
      else resolve()
    }
    const timer = setTimeout(
      () =>
        finish(
          new ProbeTimeoutError(
            `timeout: no HTTP/2 SETTINGS from ${address} within ${timeoutMs} ms`
          )
        ),
      timeoutMs
    )
    session.once('remoteSettings', () => finish())
    // Every later error (e.g. from destroy) is swallowed here; only the first one counts.
    session.on('error', (e: NodeJS.ErrnoException) =>
      finish(new Error(`connect-failed: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' ').trim()))
    )
    session.once('close', () =>
      finish(new Error(`connection-closed: ${address} closed before the HTTP/2 handshake`))
    )
  })
