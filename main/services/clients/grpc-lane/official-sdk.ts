import type * as OfficialLib from 'rocketmq-client-nodejs'
import type { MessageView } from 'rocketmq-client-nodejs'
import { reasonOf } from './deadline'
import type { GrpcSdk, SdkCheckAnswer, SdkMessage, SdkReceipt, SdkReceived } from './sdk-port'
import { positionOfReceipt, RefusedMessageError } from './sdk-port'

/** The library logs every retry through egg-logger to ~/logs; the lanes record to the ledger instead. */
const quiet = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} }

interface TelemetryStreamOwner {
  createTelemetryStream(endpoints: unknown): NodeJS.EventEmitter
}

/**
 * rocketmq-client-nodejs 1.0.8 releases a telemetry stream with `removeAllListeners()` and then
 * lets it emit 'error' (ECONNRESET when a proxy dies), which Node raises as an uncaught exception
 * that would take down the whole app. Every stream keeps a no-op 'error' listener instead.
 */
function containTelemetryErrors(client: object): void {
  const owner = client as TelemetryStreamOwner
  const create = owner.createTelemetryStream.bind(owner)
  owner.createTelemetryStream = (endpoints) => {
    const stream = create(endpoints)
    const ignore = (): void => {}
    const removeAll = stream.removeAllListeners.bind(stream)
    stream.removeAllListeners = (...args: Parameters<typeof removeAll>) => {
      removeAll(...args)
      if (args.length === 0 || args[0] === 'error') stream.on('error', ignore)
      return stream
    }
    stream.on('error', ignore)
    return stream
  }
}

/**
 * Imports rocketmq-client-nodejs (about 7 MB of heap) and adapts it. A dynamic import, not a static
 * one: room workers hosting only remoting clients never call this, and the CLI bundle keeps the
 * package external, so a static import anywhere in it would load the SDK in every worker.
 */
export async function loadOfficialSdk(): Promise<GrpcSdk> {
  return officialSdk(await import('rocketmq-client-nodejs'))
}

/** rocketmq-client-nodejs 1.0.8 as users call it (no namespace, no TLS, no credentials). */
function officialSdk(lib: typeof OfficialLib): GrpcSdk {
  const { FilterExpression, Producer, SimpleConsumer } = lib
  const refusals = [
    lib.BadRequestException,
    lib.PayloadTooLargeException,
    lib.RequestHeaderFieldsTooLargeException
  ]
  const refused = (e: unknown): unknown => asRefusal(e, refusals)
  return {
    producer(o) {
      const checker = o.checker
      const p = new Producer({
        endpoints: o.endpoints,
        namespace: '',
        topics: [o.topic],
        logger: quiet,
        ...(o.requestTimeoutMs !== undefined ? { requestTimeout: o.requestTimeoutMs } : {}),
        ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}),
        ...(checker
          ? {
              checker: {
                check: async (v: MessageView) =>
                  RESOLUTION[checker({ messageId: v.messageId, keys: v.keys })] as never
              }
            }
          : {})
      })
      containTelemetryErrors(p)
      const send = (m: SdkMessage, tx?: ReturnType<OfficialLib.Producer['beginTransaction']>) =>
        p.send(messageOptions(m), tx).then(receiptOf, (e: unknown) => {
          throw refused(e)
        })
      return {
        startup: () => p.startup(),
        shutdown: () => p.shutdown(),
        send: (m) => send(m),
        async sendHalf(m) {
          const tx = p.beginTransaction()
          const receipt = await send(m, tx)
          return { receipt, end: (d) => (d === 'commit' ? tx.commit() : tx.rollback()) }
        }
      }
    },

    simpleConsumer(o) {
      const c = new SimpleConsumer({
        endpoints: o.endpoints,
        namespace: '',
        consumerGroup: o.group,
        subscriptions: new Map([[o.topic, new FilterExpression(o.tag)]]),
        awaitDuration: o.awaitMs,
        logger: quiet,
        ...(o.requestTimeoutMs !== undefined ? { requestTimeout: o.requestTimeoutMs } : {})
      })
      containTelemetryErrors(c)
      return {
        startup: () => c.startup(),
        shutdown: () => c.shutdown(),
        async receive(max, invisibleMs) {
          const views = await c.receive(max, invisibleMs)
          return views.map((v): SdkReceived => {
            const at = positionOfReceipt(v.receiptHandle)
            return {
              messageId: v.messageId,
              keys: v.keys,
              tag: v.tag,
              offset: typeof v.offset === 'number' ? v.offset : (at?.offset ?? null),
              brokerName: at?.brokerName ?? null,
              queueId: at?.queueId ?? null,
              bornAt: v.bornTimestamp ? v.bornTimestamp.getTime() : null,
              handle: v
            }
          })
        },
        ack: (m) => c.ack(m.handle as MessageView)
      }
    }
  }
}

/** The proto's TransactionResolution values (apache/rocketmq/v2/definition.proto); 0 = unspecified. */
const RESOLUTION: Record<SdkCheckAnswer, number> = { unknown: 0, commit: 1, rollback: 2 }

function messageOptions(m: SdkMessage): OfficialLib.MessageOptions {
  return {
    topic: m.topic,
    body: m.body,
    ...(m.tag !== undefined ? { tag: m.tag } : {}),
    ...(m.keys?.length ? { keys: m.keys } : {}),
    ...(m.deliveryTimestamp ? { deliveryTimestamp: m.deliveryTimestamp } : {}),
    ...(m.messageGroup !== undefined ? { messageGroup: m.messageGroup } : {})
  }
}

function receiptOf(r: OfficialLib.SendReceipt): SdkReceipt {
  const mq = r.messageQueue as { broker?: { name?: string }; queueId?: number } | undefined
  return {
    messageId: r.messageId,
    offset: Number.isFinite(Number(r.offset)) ? Number(r.offset) : null,
    brokerName: mq?.broker?.name ?? null,
    queueId: typeof mq?.queueId === 'number' ? mq.queueId : null
  }
}

/**
 * A send error that refuses the message rather than the proxy, as a RefusedMessageError: the
 * proxy's 4xx answers (StatusChecker: bad request, type conflict, too large), and the library's own
 * checks before it sends, which throw a TypeError (a DELAY message on a topic the route says is
 * NORMAL, a body over the limit). Anything else passes through unchanged.
 */
export function asRefusal(
  e: unknown,
  refusals: readonly (abstract new (...a: never[]) => unknown)[]
): unknown {
  if (e instanceof TypeError || refusals.some((R) => e instanceof R)) {
    return new RefusedMessageError(reasonOf(e))
  }
  return e
}
