import { EventEmitter } from 'node:events'
import type {
  LedgerEvent,
  LedgerEventData,
  LedgerEventKind
} from '../../../../common/scenario/events'
import type { DeliveryRecord, LedgerPort, SendRecord } from '../../ledger/types'
import type { RemotingClientEvents } from '../../remoting/remoting-rpc'
import type { DecodedCommand } from '../../remoting/codec'
import { RequestCode } from '../../remoting/codes'
import {
  ConnectFailedError,
  ConnectionClosedError,
  RemoteError,
  RemotingTimeoutError
} from '../../remoting/errors'
import { encodeStoredMessage } from '../../remoting/message'
import type { EndTransactionInput } from '../../remoting/transaction-requests'
import type { TopicRoute } from '../../remoting/types'
import type { NameServerCandidate } from './choose-name-server'
import type { SendStatus } from '../../remoting/message-requests'
import type { ManagementAnswer, ManagementNodeRef, ManagementPort, RemotingPort } from './ports'

/** Records everything clients write, for assertions. */
export class RecordingLedger implements LedgerPort {
  events: Omit<LedgerEvent, 'runId'>[] = []
  sends: SendRecord[] = []
  deliveries: DeliveryRecord[] = []
  event<K extends LedgerEventKind>(
    kind: K,
    clientId: string | null,
    room: string | null,
    data: LedgerEventData[K]
  ) {
    this.events.push({ atMs: performance.now(), kind, clientId, room, data } as Omit<
      LedgerEvent,
      'runId'
    >)
  }
  send(r: SendRecord) {
    this.sends.push(r)
  }
  delivery(r: DeliveryRecord) {
    this.deliveries.push(r)
  }
  kinds(kind: LedgerEventKind) {
    return this.events.filter((e) => e.kind === kind).map((e) => e.data as Record<string, unknown>)
  }
}

type Health = 'up' | 'down' | 'hung' | { code: number }

/** An in-memory cluster: name servers serving one route, brokers that can be up, down or hung. */
export class FakeCluster {
  nameServers = new Map<string, Health>()
  brokers = new Map<string, { name: string; room: string; health: Health }>()
  sent: {
    broker: string
    queueId: number
    key: string
    properties?: Record<string, string>
    sysFlag?: number
  }[] = []
  /** Every GET_CONSUMER_LIST_BY_GROUP, by the broker address asked. */
  listCalls: string[] = []
  /** Every QUERY_CONSUMER_OFFSET, by `brokerName#queueId`; answered once `offsetGate` settles. */
  offsetQueries: string[] = []
  offsetGate: Promise<void> | undefined
  /** Every PULL_MESSAGE, by `brokerName#queueId`. */
  pullCalls: string[] = []
  /** Consumer ids each broker lists for the group. */
  consumerIds = new Map<string, string[]>()
  /** Tells every client a group's membership changed, as brokers do on a channel close. */
  notify(addr: string, consumerGroup: string): void {
    for (const e of this.emitters) e.emit('consumer-ids-changed', { address: addr, consumerGroup })
  }
  /** Messages waiting per `brokerName#queueId`. */
  backlog = new Map<string, string[]>()
  unregistered: string[] = []
  /** Committed consumer offsets per `brokerName#queueId` (one group per test), as brokers keep them. */
  offsets = new Map<string, number>()
  /** Every offset commit, in order: where it went and what it said. */
  commits: { addr: string; queue: string; offset: number }[] = []
  /** When true, every acknowledged send is stored in its queue's backlog for consumers to pull. */
  loopback = false
  emitters: EventEmitter<RemotingClientEvents>[] = []
  /** Queue locks (`brokerName#queueId` → client id), as brokers keep them for orderly consumers. */
  locks = new Map<string, string>()
  /** While set, lock requests wait for it (a lock answer still on its way). */
  lockGate: Promise<void> | undefined
  /** Every lock request and release, in order. */
  lockCalls: { op: 'lock' | 'unlock'; clientId: string; queues: string[] }[] = []
  /** Every END_TRANSACTION written, with the broker address it went to. */
  ended: { addr: string; input: EndTransactionInput }[] = []
  /** The broker dies between storing a half message and its END_TRANSACTION: writing it fails. */
  endsLost = false
  /** Brokers that answer sends only after this many ms (beyond the request timeout: it times out). */
  slow = new Map<string, number>()
  /** Brokers that store a send with a warning, e.g. a synchronous master without its slave. */
  sendStatus = new Map<string, Exclude<SendStatus, 'SEND_OK'>>()

  route(): TopicRoute {
    const live = [...this.brokers.entries()].filter(([, b]) => b.health !== 'down')
    return {
      orderTopicConf: undefined,
      filterServerTable: {},
      brokerDatas: live.map(([addr, b]) => ({
        cluster: 'C',
        brokerName: b.name,
        brokerAddrs: { '0': addr },
        zoneName: b.room,
        enableActingMaster: false
      })),
      queueDatas: live.map(([, b]) => ({
        brokerName: b.name,
        readQueueNums: 4,
        writeQueueNums: 4,
        perm: 6,
        topicSysFlag: 0
      }))
    }
  }

  private check(addr: string, h: Health | undefined, code: number): void {
    if (h === undefined || h === 'down') throw new ConnectFailedError(addr, 'ECONNREFUSED')
    if (h === 'hung') throw new RemotingTimeoutError(addr, code, 1)
    if (typeof h === 'object') throw new RemoteError(addr, code, h.code, 'fake')
  }

  /**
   * The broker at `addr` checks back a half message (CHECK_TRANSACTION_STATE on every client's
   * connection, as a broker picks one of the group's channels).
   */
  checkBack(addr: string, m: { key: string; group: string; commitLogOffset: number }): void {
    const body = encodeStoredMessage({
      topic: 'orders',
      queueId: 0,
      queueOffset: 7,
      commitLogOffset: m.commitLogOffset,
      body: Buffer.from('x'),
      properties: { UNIQ_KEY: m.key, PGROUP: m.group, TRAN_MSG: 'true' }
    })
    const command = {
      code: RequestCode.CHECK_TRANSACTION_STATE,
      language: 'JAVA',
      version: 479,
      opaque: 1,
      flag: 2,
      serializeType: 0,
      extFields: {
        msgId: m.key,
        transactionId: m.key,
        tranStateTableOffset: '7',
        commitLogOffset: String(m.commitLogOffset),
        bname: this.brokers.get(addr)?.name ?? ''
      },
      body
    } as DecodedCommand
    for (const e of this.emitters) e.emit('server-request', { address: addr, command })
  }

  remoting(): RemotingPort {
    const emitter = new EventEmitter<RemotingClientEvents>()
    this.emitters.push(emitter)
    const port = {
      getRouteInfoByTopic: async (addr: string) => {
        this.check(addr, this.nameServers.get(addr), 105)
        return this.route()
      },
      sendMessageV2: async (
        addr: string,
        input: {
          brokerName: string
          queueId: number
          uniqKey?: string
          topic: string
          properties?: Record<string, string>
          sysFlag?: number
        },
        opts?: { timeoutMs?: number }
      ) => {
        this.check(addr, this.brokers.get(addr)?.health, 310)
        const slow = this.slow.get(addr)
        if (slow !== undefined) {
          const budget = opts?.timeoutMs ?? Infinity
          await new Promise((r) => setTimeout(r, Math.min(slow, budget)))
          // A hung broker: the request was written, nothing came back in time (it is not stored
          // here; a real one may store it once it resumes).
          if (slow > budget) throw new RemotingTimeoutError(addr, 310, budget)
        }
        this.sent.push({
          broker: input.brokerName,
          queueId: input.queueId,
          key: input.uniqKey ?? '',
          ...(input.properties ? { properties: input.properties } : {}),
          ...(input.sysFlag ? { sysFlag: input.sysFlag } : {})
        })
        if (this.loopback) {
          const q = `${input.brokerName}#${input.queueId}`
          this.backlog.set(q, [...(this.backlog.get(q) ?? []), input.uniqKey ?? ''])
        }
        return {
          status: this.sendStatus.get(addr) ?? ('SEND_OK' as const),
          msgId: input.uniqKey ?? '',
          // Store host 127.0.0.1:10911, then the commit-log offset: 1000 × the send's number.
          offsetMsgId: `7F00000100002A9F${(this.sent.length * 1000).toString(16).toUpperCase().padStart(16, '0')}`,
          topic: input.topic,
          brokerName: input.brokerName,
          queueId: input.queueId,
          queueOffset: this.sent.length
        }
      },
      getMaxOffset: async (addr: string, input: { brokerName: string; queueId: number }) => {
        this.check(addr, this.brokers.get(addr)?.health, 30)
        return this.backlog.get(`${input.brokerName}#${input.queueId}`)?.length ?? 0
      },
      heartbeat: async (addr: string, input: { clientId: string; consumers?: unknown[] }) => {
        this.check(addr, this.brokers.get(addr)?.health, 34)
        // Brokers list a group's consumers from their heartbeats, as real ones do.
        if (this.loopback && input.consumers?.length) {
          const ids = this.consumerIds.get(addr) ?? []
          if (!ids.includes(input.clientId)) this.consumerIds.set(addr, [...ids, input.clientId])
        }
      },
      getConsumerListByGroup: async (addr: string) => {
        this.listCalls.push(addr)
        this.check(addr, this.brokers.get(addr)?.health, 38)
        return this.consumerIds.get(addr) ?? []
      },
      queryConsumerOffset: async (addr: string, input: { brokerName: string; queueId: number }) => {
        this.offsetQueries.push(`${input.brokerName}#${input.queueId}`)
        await this.offsetGate
        this.check(addr, this.brokers.get(addr)?.health, 14)
        return this.offsets.get(`${input.brokerName}#${input.queueId}`)
      },
      updateConsumerOffset: async (
        addr: string,
        input: { brokerName: string; queueId: number; commitOffset: number }
      ) => {
        this.check(addr, this.brokers.get(addr)?.health, 15)
        const queue = `${input.brokerName}#${input.queueId}`
        this.commits.push({ addr, queue, offset: input.commitOffset })
        this.offsets.set(queue, input.commitOffset)
      },
      unregisterClient: async (_addr: string, input: { clientId: string }) => {
        this.unregistered.push(input.clientId)
        if (this.loopback) {
          for (const [a, ids] of this.consumerIds)
            this.consumerIds.set(
              a,
              ids.filter((id) => id !== input.clientId)
            )
        }
      },
      pullMessage: async (
        addr: string,
        input: { brokerName: string; queueId: number; queueOffset: number; commitOffset?: number }
      ) => {
        this.check(addr, this.brokers.get(addr)?.health, 11)
        const key = `${input.brokerName}#${input.queueId}`
        this.pullCalls.push(key)
        // A pull carries the consumer's offset; the broker stores it (PullSysFlag.COMMIT_OFFSET).
        if (input.commitOffset) this.offsets.set(key, input.commitOffset)
        const q = this.backlog.get(key) ?? []
        const msgs = q.slice(input.queueOffset)
        if (msgs.length === 0) {
          await new Promise((r) => setTimeout(r, 10))
          return {
            status: 'NO_NEW_MSG',
            nextBeginOffset: input.queueOffset,
            minOffset: 0,
            maxOffset: q.length,
            suggestWhichBrokerId: 0,
            messages: []
          }
        }
        return {
          status: 'FOUND',
          nextBeginOffset: q.length,
          minOffset: 0,
          maxOffset: q.length,
          suggestWhichBrokerId: 0,
          messages: msgs.map((key, i) => ({
            msgId: key,
            queueOffset: input.queueOffset + i,
            bornTimestamp: 1,
            properties: {},
            body: Buffer.alloc(0)
          }))
        }
      },
      lockBatchMq: async (
        addr: string,
        input: {
          clientId: string
          queues: { brokerName: string; queueId: number; topic: string }[]
        }
      ) => {
        this.check(addr, this.brokers.get(addr)?.health, 41)
        const keys = input.queues.map((q) => `${q.brokerName}#${q.queueId}`)
        this.lockCalls.push({ op: 'lock', clientId: input.clientId, queues: keys })
        await this.lockGate
        return input.queues.filter((_q, i) => {
          const holder = this.locks.get(keys[i]!)
          if (holder !== undefined && holder !== input.clientId) return false
          this.locks.set(keys[i]!, input.clientId)
          return true
        })
      },
      unlockBatchMq: async (
        addr: string,
        input: { clientId: string; queues: { brokerName: string; queueId: number }[] }
      ) => {
        this.check(addr, this.brokers.get(addr)?.health, 42)
        const keys = input.queues.map((q) => `${q.brokerName}#${q.queueId}`)
        this.lockCalls.push({ op: 'unlock', clientId: input.clientId, queues: keys })
        for (const k of keys) if (this.locks.get(k) === input.clientId) this.locks.delete(k)
      },
      endTransaction: async (addr: string, input: EndTransactionInput) => {
        this.check(addr, this.brokers.get(addr)?.health, 37)
        if (this.endsLost) throw new ConnectionClosedError(addr, 'closed by the broker')
        this.ended.push({ addr, input })
      },
      close: () => {},
      on: emitter.on.bind(emitter),
      off: emitter.off.bind(emitter)
    }
    return port as unknown as RemotingPort
  }
}

/** Management nodes answering from a shared list; a node id in `down` refuses. */
export class FakeManagement implements ManagementPort {
  down = new Set<string>()
  calls: string[] = []
  constructor(public list: NameServerCandidate[]) {}
  async fetchNameServers(node: ManagementNodeRef): Promise<ManagementAnswer> {
    this.calls.push(node.id)
    if (this.down.has(node.id)) throw new Error('ECONNREFUSED')
    return { room: node.room, nameServers: this.list }
  }
}

/** Polls a condition (no fixed sleeps) until it holds or 2 s pass. */
export async function until(cond: () => boolean, what: string, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
