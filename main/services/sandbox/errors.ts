/** Machine-readable reason of every error the sandbox raises, so callers switch on `code`. */
export type SandboxErrorCode =
  | 'java-missing'
  | 'rocketmq-missing'
  | 'port-busy'
  | 'no-free-port'
  | 'boot-timeout'
  | 'boot-exit'
  | 'node-state'
  | 'node-attached'
  | 'unknown-node'
  | 'topology'
  | 'topic-create'
  | 'already-running'

/** Base class: the message names the thing and the fix; `nodeId` is set when one node is at fault. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode
  readonly nodeId: string | undefined

  constructor(
    code: SandboxErrorCode,
    message: string,
    options: { nodeId?: string; cause?: unknown } = {}
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'SandboxError'
    this.code = code
    this.nodeId = options.nodeId
  }
}

/** Raised before anything starts when no usable JDK 17+ is found. */
export class JavaMissingError extends SandboxError {
  constructor(message: string, cause?: unknown) {
    super('java-missing', message, { cause })
    this.name = 'JavaMissingError'
  }
}

/** Raised when the RocketMQ jars are not where the sandbox looks for them. */
export class RocketmqMissingError extends SandboxError {
  constructor(message: string) {
    super('rocketmq-missing', message)
    this.name = 'RocketmqMissingError'
  }
}

/** An explicit topology port that something else already holds. */
export class PortBusyError extends SandboxError {
  readonly port: number

  constructor(nodeId: string, port: number, message: string) {
    super('port-busy', message, { nodeId })
    this.name = 'PortBusyError'
    this.port = port
  }
}

/** A node that did not become ready: it timed out or exited while booting. */
export class NodeBootError extends SandboxError {
  readonly logPath: string
  readonly exitCode: number | null | undefined

  constructor(
    code: 'boot-timeout' | 'boot-exit',
    nodeId: string,
    message: string,
    logPath: string,
    exitCode?: number | null
  ) {
    super(code, message, { nodeId })
    this.name = 'NodeBootError'
    this.logPath = logPath
    this.exitCode = exitCode
  }
}
