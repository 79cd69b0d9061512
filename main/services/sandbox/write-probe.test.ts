import { describe, expect, it } from 'vitest'
import { RemoteError } from '../remoting/errors'
import type { SendResult } from '../remoting/message-requests'
import { READY_PROBE_TOPIC, remotingWriteProbe } from './write-probe'

/** The two broker calls the probe makes, scripted per call. */
function fakeRpc(script: { create?: (() => void)[]; send: (() => SendResult['status'])[] }) {
  const calls: string[] = []
  let creates = 0
  let sends = 0
  return {
    calls,
    rpc: {
      updateAndCreateTopic: async (
        address: string,
        input: { topic: string; writeQueueNums?: number }
      ) => {
        calls.push(`create ${input.topic}/${input.writeQueueNums} on ${address}`)
        script.create?.[creates++]?.()
      },
      sendMessageV2: async (address: string, input: { topic: string; queueId: number }) => {
        calls.push(`send ${input.topic}/${input.queueId} to ${address}`)
        const status = script.send[sends++]!()
        return { status } as SendResult
      },
      close: () => calls.push('close')
    }
  }
}

describe('remotingWriteProbe', () => {
  it('creates its one-queue topic on a master once, then counts SEND_OK as acknowledged', async () => {
    const { rpc, calls } = fakeRpc({ send: [() => 'SEND_OK', () => 'SEND_OK'] })
    const probe = remotingWriteProbe(rpc as never)
    expect(await probe.send('m:1', 'broker-a')).toEqual({ kind: 'acked' })
    expect(await probe.send('m:1', 'broker-a')).toEqual({ kind: 'acked' })
    expect(calls).toEqual([
      `create ${READY_PROBE_TOPIC}/1 on m:1`,
      `send ${READY_PROBE_TOPIC}/0 to m:1`,
      `send ${READY_PROBE_TOPIC}/0 to m:1`
    ])
  })

  it('a write stored but not confirmed by the replicas is unconfirmed, not acknowledged', async () => {
    const { rpc } = fakeRpc({ send: [() => 'FLUSH_SLAVE_TIMEOUT', () => 'SLAVE_NOT_AVAILABLE'] })
    const probe = remotingWriteProbe(rpc as never)
    expect(await probe.send('m:1', 'broker-a')).toEqual({
      kind: 'unconfirmed',
      status: 'FLUSH_SLAVE_TIMEOUT'
    })
    expect((await probe.send('m:1', 'broker-a')).kind).toBe('unconfirmed')
  })

  it('a broker that refuses (not master yet) is refused, with its code and first line of remark', async () => {
    const { rpc } = fakeRpc({
      send: [
        () => {
          throw new RemoteError(
            'm:1',
            310,
            14,
            'service not available now. It may be caused by\n at …'
          )
        }
      ]
    })
    expect(await remotingWriteProbe(rpc as never).send('m:1', 'broker-a')).toEqual({
      kind: 'refused',
      reason: 'code 14: service not available now. It may be caused by'
    })
  })

  it('creates the topic again when the broker says it does not exist (a new master)', async () => {
    const { rpc, calls } = fakeRpc({
      send: [
        () => {
          throw new RemoteError('m:1', 310, 17, 'topic not exist')
        },
        () => 'SEND_OK'
      ]
    })
    const probe = remotingWriteProbe(rpc as never)
    expect((await probe.send('m:1', 'broker-a')).kind).toBe('refused')
    expect(await probe.send('m:1', 'broker-a')).toEqual({ kind: 'acked' })
    expect(calls.filter((c) => c.startsWith('create'))).toHaveLength(2)
  })

  it('a topic that cannot be created is refused, and is tried again on the next send', async () => {
    const { rpc, calls } = fakeRpc({
      create: [
        () => {
          throw new Error('connect ECONNREFUSED m:1')
        }
      ],
      send: [() => 'SEND_OK']
    })
    const probe = remotingWriteProbe(rpc as never)
    expect(await probe.send('m:1', 'broker-a')).toEqual({
      kind: 'refused',
      reason: `creating ${READY_PROBE_TOPIC}: connect ECONNREFUSED m:1`
    })
    expect(await probe.send('m:1', 'broker-a')).toEqual({ kind: 'acked' })
    expect(calls.filter((c) => c.startsWith('create'))).toHaveLength(2)
  })

  it('a timeout is refused with the error, cut to one short line', async () => {
    const long = `request 310 to m:1 timed out after 6000 ms ${'x'.repeat(300)}`
    const { rpc } = fakeRpc({
      send: [
        () => {
          throw new Error(long)
        }
      ]
    })
    const r = await remotingWriteProbe(rpc as never).send('m:1', 'broker-a')
    expect(r.kind).toBe('refused')
    expect(r.kind === 'refused' && r.reason.length).toBe(160)
  })
})
