import type { DecodedCommand } from './codec'
import { RequestCode, TransactionResolution } from './codes'
import { BadResponseError } from './errors'
import type { MessageExt } from './message'
import { decodeMessages } from './message'
import type { RemotingInvoker } from './remoting-calls'
import { toExtFields } from './remoting-calls'

/** How a producer ends a transaction: its local transaction's outcome, or unknown (check back later). */
export type TransactionEnd = 'commit' | 'rollback' | 'unknown'

const RESOLUTION: Record<TransactionEnd, number> = {
  commit: TransactionResolution.COMMIT,
  rollback: TransactionResolution.ROLLBACK,
  unknown: TransactionResolution.NOT
}

/** Which half message an END_TRANSACTION decides: what the half message's send answered. */
export interface EndTransactionInput {
  /** The broker's name (bname); left out when a check-back did not say it. */
  brokerName?: string
  producerGroup: string
  topic: string
  /** UNIQ_KEY of the half message (the Java client sends it as both msgId and transactionId). */
  msgId: string
  transactionId?: string
  /** The half message's queue offset (tranStateTableOffset). */
  tranStateTableOffset: number
  /** The half message's commit-log offset, which the broker looks it up by. */
  commitLogOffset: number
  end: TransactionEnd
  /** True when answering the broker's CHECK_TRANSACTION_STATE. */
  fromTransactionCheck?: boolean
}

/**
 * The commit-log offset inside an offset message id (store host, port, offset as upper-case hex:
 * MessageDecoder.createMessageId). The offset is the last 8 bytes, for IPv4 and IPv6 hosts alike.
 */
export function commitLogOffsetOf(offsetMsgId: string): number {
  if (
    !/^[0-9A-Fa-f]+$/.test(offsetMsgId) ||
    (offsetMsgId.length !== 32 && offsetMsgId.length !== 56)
  )
    throw new Error(
      `"${offsetMsgId}" is not an offset message id (32 or 56 hex digits: store host, port, commit-log offset)`
    )
  const v = BigInt(`0x${offsetMsgId.slice(-16)}`)
  if (v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`offset message id "${offsetMsgId}" holds an out-of-range offset ${v}`)
  return Number(v)
}

/**
 * END_TRANSACTION (37), oneway as the Java client sends it: the broker commits the half message
 * (writes it to its real topic) or rolls it back; `unknown` leaves it to the check-back.
 */
export function endTransaction(
  rpc: RemotingInvoker,
  brokerAddress: string,
  input: EndTransactionInput
): Promise<void> {
  return rpc.invokeOneway(brokerAddress, {
    code: RequestCode.END_TRANSACTION,
    extFields: toExtFields({
      topic: input.topic,
      producerGroup: input.producerGroup,
      tranStateTableOffset: input.tranStateTableOffset,
      commitLogOffset: input.commitLogOffset,
      commitOrRollback: RESOLUTION[input.end],
      fromTransactionCheck: input.fromTransactionCheck ?? false,
      msgId: input.msgId,
      transactionId: input.transactionId ?? input.msgId,
      bname: input.brokerName
    })
  })
}

/** A broker's CHECK_TRANSACTION_STATE: which half message it asks about, and the message itself. */
export interface TransactionCheck {
  brokerAddress: string
  brokerName: string | undefined
  topic: string
  /** UNIQ_KEY of the half message. */
  msgId: string
  transactionId: string
  tranStateTableOffset: number
  commitLogOffset: number
  /** The half message, its properties (PGROUP, the application's own) included. */
  message: MessageExt
}

/**
 * Reads a CHECK_TRANSACTION_STATE (39) request the broker pushed on a producer's connection.
 * Throws BadResponseError (naming the broker) when a field or the message is missing.
 */
export function parseTransactionCheck(
  brokerAddress: string,
  cmd: DecodedCommand
): TransactionCheck {
  const f = cmd.extFields
  const long = (name: string): number => {
    const v = Number(f[name])
    if (f[name] === undefined || !Number.isSafeInteger(v))
      throw new BadResponseError(brokerAddress, `CHECK_TRANSACTION_STATE has no valid ${name}`)
    return v
  }
  const [message] = decodeMessages(cmd.body, brokerAddress)
  if (!message)
    throw new BadResponseError(brokerAddress, 'CHECK_TRANSACTION_STATE carries no message')
  const msgId = f.msgId ?? message.msgId
  return {
    brokerAddress,
    brokerName: f.bname ?? f.brokerName,
    topic: f.topic ?? message.topic,
    msgId,
    transactionId: f.transactionId ?? msgId,
    tranStateTableOffset: long('tranStateTableOffset'),
    commitLogOffset: long('commitLogOffset'),
    message
  }
}
