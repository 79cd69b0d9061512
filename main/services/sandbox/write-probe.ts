import { ResponseCode } from '../remoting/codes'
import { RemoteError } from '../remoting/errors'
import type { RemotingRpc } from '../remoting/remoting-rpc'
import type { WriteOutcome } from './group-readiness'

/**
 * The sandbox's own topic for readiness writes: one queue on a controller-mode group's master. No
 * run subscribes to it, so its messages never count as a run's traffic. Sandbox clusters only: the
 * sandbox never writes to an operator's (attached) cluster.
 */
export const READY_PROBE_TOPIC = 'DRSTUDIO_READY_PROBE'
const PRODUCER_GROUP = 'DRSTUDIO_READY_PROBE_PRODUCER'

/** Sends one message to a group's master; a port so sandbox unit tests need no broker. */
export interface WriteProbe {
  send(masterAddress: string, brokerName: string): Promise<WriteOutcome>
  close?(): void
}

type ProbeRpc = Pick<RemotingRpc, 'updateAndCreateTopic' | 'sendMessageV2' | 'close'>

/**
 * SEND_MESSAGE_V2 of one small message through DR Studio's remoting client, after creating the
 * probe topic on that broker (once per address; again when the broker says it does not exist).
 * The timeout outlasts the master's own wait for its replicas (syncFlushTimeout, 5 s), so a slow
 * set shows as FLUSH_SLAVE_TIMEOUT rather than as no answer.
 */
export function remotingWriteProbe(client: ProbeRpc, timeoutMs = 6000): WriteProbe {
  const created = new Set<string>()
  return {
    async send(masterAddress, brokerName) {
      if (!created.has(masterAddress)) {
        try {
          await client.updateAndCreateTopic(
            masterAddress,
            { topic: READY_PROBE_TOPIC, brokerName, readQueueNums: 1, writeQueueNums: 1 },
            { timeoutMs: 3000 }
          )
          created.add(masterAddress)
        } catch (e) {
          return { kind: 'refused', reason: `creating ${READY_PROBE_TOPIC}: ${reasonOf(e)}` }
        }
      }
      try {
        const r = await client.sendMessageV2(
          masterAddress,
          {
            brokerName,
            producerGroup: PRODUCER_GROUP,
            topic: READY_PROBE_TOPIC,
            queueId: 0,
            body: 'ready?'
          },
          { timeoutMs }
        )
        return r.status === 'SEND_OK'
          ? { kind: 'acked' }
          : { kind: 'unconfirmed', status: r.status }
      } catch (e) {
        if (e instanceof RemoteError && e.responseCode === ResponseCode.TOPIC_NOT_EXIST) {
          created.delete(masterAddress)
        }
        return { kind: 'refused', reason: reasonOf(e) }
      }
    },
    close: () => client.close()
  }
}

/** A broker's own remark when it gave one (e.g. "broker is not master"), else the error. */
function reasonOf(e: unknown): string {
  const text =
    e instanceof RemoteError
      ? `code ${e.responseCode}${e.remark ? `: ${e.remark}` : ''}`
      : e instanceof Error
        ? e.message
        : String(e)
  const line = text.split('\n')[0]!
  return line.length > 160 ? `${line.slice(0, 157)}...` : line
}
