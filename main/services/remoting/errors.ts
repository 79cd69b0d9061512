/** Machine-readable reason carried by every error the remoting layer raises. */
export type RemotingErrorCode =
  | 'frame-too-large'
  | 'bad-header-length'
  | 'bad-header-json'
  | 'bad-binary-header'
  | 'bad-serialize-type'
  | 'short-frame'
  | 'timeout'
  | 'connection-closed'
  | 'connect-failed'
  | 'remote-error'
  | 'bad-response'
  | 'bad-request'

/** Base of every error thrown by main/services/remoting, so callers switch on `code`, not text. */
export class RemotingError extends Error {
  readonly code: RemotingErrorCode
  /** Broker/namesrv address involved, when known. */
  readonly address: string | undefined

  constructor(
    code: RemotingErrorCode,
    message: string,
    options: { address?: string; cause?: unknown } = {}
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'RemotingError'
    this.code = code
    this.address = options.address
  }
}

/** A byte stream that is not a valid RocketMQ frame; the connection carrying it is unusable. */
export class FrameError extends RemotingError {
  constructor(
    code:
      | 'frame-too-large'
      | 'bad-header-length'
      | 'bad-header-json'
      | 'bad-binary-header'
      | 'bad-serialize-type'
      | 'short-frame',
    message: string,
    options: { address?: string; cause?: unknown } = {}
  ) {
    super(code, message, options)
    this.name = 'FrameError'
  }
}

/** No response within the per-request deadline; the connection itself may still be fine. */
export class RemotingTimeoutError extends RemotingError {
  readonly timeoutMs: number

  constructor(address: string, requestCode: number, timeoutMs: number) {
    super('timeout', `request ${requestCode} to ${address} timed out after ${timeoutMs} ms`, {
      address
    })
    this.name = 'RemotingTimeoutError'
    this.timeoutMs = timeoutMs
  }
}

/** The connection went away (peer closed, reset, malformed frame, or we closed it) while in use. */
export class ConnectionClosedError extends RemotingError {
  constructor(address: string, reason: string, cause?: unknown) {
    super('connection-closed', `connection to ${address} closed: ${reason}`, { address, cause })
    this.name = 'ConnectionClosedError'
  }
}

/** A TCP connection could not be established (refused, unreachable, or connect timeout). */
export class ConnectFailedError extends RemotingError {
  /** No answer to the SYN within the connect timeout: the peer may be alive but stalled or slow. */
  readonly timedOut: boolean

  constructor(address: string, reason: string, cause?: unknown, timedOut = false) {
    super('connect-failed', `cannot connect to ${address}: ${reason}`, { address, cause })
    this.name = 'ConnectFailedError'
    this.timedOut = timedOut
  }
}

/** The server answered with a non-success response code; `responseCode`/`remark` are RocketMQ's own. */
export class RemoteError extends RemotingError {
  readonly responseCode: number
  readonly remark: string | undefined

  constructor(address: string, requestCode: number, responseCode: number, remark?: string) {
    super(
      'remote-error',
      `request ${requestCode} to ${address} failed with code ${responseCode}${remark ? `: ${remark}` : ''}`,
      { address }
    )
    this.name = 'RemoteError'
    this.responseCode = responseCode
    this.remark = remark
  }
}

/** A success response whose header or body could not be understood. */
export class BadResponseError extends RemotingError {
  constructor(address: string, message: string, cause?: unknown) {
    super('bad-response', `bad response from ${address}: ${message}`, { address, cause })
    this.name = 'BadResponseError'
  }
}

/** Narrowing helper for catch blocks. */
export function isRemotingError(e: unknown): e is RemotingError {
  return e instanceof RemotingError
}
