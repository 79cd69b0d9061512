import type { TopicRoute } from '../../remoting/types'
import type { BrokerCandidate } from './choose-broker'
import type { QueueRef } from './allocate-nearby'

const PERM_READ = 4
const PERM_WRITE = 2

/**
 * Joins a route's broker and queue data into per-broker candidates tagged with their room: the
 * room of the master's address when `roomOfAddress` knows it (a controller-mode group moves its
 * master between rooms), else the room the topology puts the group in (its master's), else the
 * zone the group registered with. The zone comes last: the name server keeps the zone of
 * whichever broker of the group registered last, and a slave in another room may carry its own.
 */
export function routeToBrokers(
  route: Pick<TopicRoute, 'brokerDatas' | 'queueDatas'>,
  roomOfAddress: (address: string) => string | undefined = () => undefined,
  brokerRooms: Readonly<Record<string, string>> = {}
): BrokerCandidate[] {
  const queues = new Map(route.queueDatas.map((q) => [q.brokerName, q]))
  return route.brokerDatas
    .map((b): BrokerCandidate => {
      const q = queues.get(b.brokerName)
      const master = b.brokerAddrs['0']
      return {
        brokerName: b.brokerName,
        room:
          (master !== undefined ? roomOfAddress(master) : undefined) ??
          brokerRooms[b.brokerName] ??
          b.zoneName ??
          null,
        masterAddr: master,
        writeQueues: q && q.perm & PERM_WRITE ? q.writeQueueNums : 0,
        readQueues: q && q.perm & PERM_READ ? q.readQueueNums : 0
      }
    })
    .sort((a, b) => a.brokerName.localeCompare(b.brokerName))
}

/** Readable queues of brokers that have a master to pull from. */
export function readableQueues(brokers: readonly BrokerCandidate[]): QueueRef[] {
  const out: QueueRef[] = []
  for (const b of brokers) {
    if (b.masterAddr === undefined) continue
    for (let i = 0; i < b.readQueues; i++)
      out.push({ brokerName: b.brokerName, queueId: i, room: b.room })
  }
  return out
}

/** A short signature of a broker list, to log route changes only when something changed. */
export function routeSignature(brokers: readonly BrokerCandidate[]): string {
  return brokers
    .map(
      (b) =>
        `${b.brokerName}@${b.room ?? '?'}=${b.masterAddr ?? '-'}/${b.writeQueues}/${b.readQueues}`
    )
    .join(',')
}
