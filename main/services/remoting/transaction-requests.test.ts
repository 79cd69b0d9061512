import { describe, expect, it } from 'vitest'
import type { DecodedCommand } from './codec'
import { RequestCode } from './codes'
import type { RemotingRequest } from './connection'
import { BadResponseError } from './errors'
import { encodeStoredMessage } from './message'
import { commitLogOffsetOf, endTransaction, parseTransactionCheck } from './transaction-requests'

describe('commitLogOffsetOf', () => {
  it('reads the offset from the last 8 bytes of IPv4 and IPv6 offset message ids', () => {
    expect(commitLogOffsetOf('7F00000100002A9F00000000000A1B2C')).toBe(0xa1b2c)
    expect(commitLogOffsetOf(`${'0'.repeat(31)}1${'00002A9F'}${'0000000000000400'}`)).toBe(1024)
  })

  it('names a string that is not one', () => {
    expect(() => commitLogOffsetOf('')).toThrow(/not an offset message id/)
    expect(() => commitLogOffsetOf('AC1F00020000')).toThrow(/32 or 56 hex digits/)
    expect(() => commitLogOffsetOf('Z'.repeat(32))).toThrow(/not an offset message id/)
    expect(() => commitLogOffsetOf(`7F00000100002A9F${'F'.repeat(16)}`)).toThrow(/out-of-range/)
  })
})

describe('endTransaction', () => {
  it('writes END_TRANSACTION oneway with the Java client’s header', async () => {
    const sent: { address: string; req: RemotingRequest }[] = []
    const rpc = {
      invoke: () => Promise.reject(new Error('not oneway')),
      invokeOneway: async (address: string, req: RemotingRequest) => {
        sent.push({ address, req })
      }
    }
    const base = {
      brokerName: 'broker-a',
      producerGroup: 'pg',
      topic: 'orders',
      msgId: 'ABC',
      tranStateTableOffset: 7,
      commitLogOffset: 4096
    }
    await endTransaction(rpc, 'a:10911', { ...base, end: 'commit' })
    await endTransaction(rpc, 'a:10911', {
      ...base,
      end: 'rollback',
      transactionId: 'T',
      fromTransactionCheck: true
    })
    await endTransaction(rpc, 'a:10911', { ...base, end: 'unknown' })
    expect(sent[0]).toEqual({
      address: 'a:10911',
      req: {
        code: RequestCode.END_TRANSACTION,
        extFields: {
          topic: 'orders',
          producerGroup: 'pg',
          tranStateTableOffset: '7',
          commitLogOffset: '4096',
          commitOrRollback: '8',
          fromTransactionCheck: 'false',
          msgId: 'ABC',
          transactionId: 'ABC',
          bname: 'broker-a'
        }
      }
    })
    expect(sent[1]!.req.extFields).toMatchObject({
      commitOrRollback: '12',
      fromTransactionCheck: 'true',
      transactionId: 'T'
    })
    expect(sent[2]!.req.extFields!.commitOrRollback).toBe('0')
  })
})

describe('parseTransactionCheck', () => {
  const body = encodeStoredMessage({
    topic: 'orders',
    queueId: 1,
    queueOffset: 7,
    commitLogOffset: 4096,
    body: Buffer.from('x'),
    properties: { UNIQ_KEY: 'ABC', PGROUP: 'pg', TRAN_MSG: 'true' }
  })
  const command = (extFields: Record<string, string>, withBody = true): DecodedCommand => ({
    code: RequestCode.CHECK_TRANSACTION_STATE,
    language: 'JAVA',
    version: 479,
    opaque: 3,
    flag: 2,
    serializeType: 0,
    extFields,
    ...(withBody ? { body } : {})
  })

  it('reads the half message and which transaction the broker asks about', () => {
    const check = parseTransactionCheck(
      'a:10911',
      command({
        msgId: 'ABC',
        transactionId: 'ABC',
        tranStateTableOffset: '7',
        commitLogOffset: '4096',
        offsetMsgId: 'X',
        bname: 'broker-a'
      })
    )
    expect(check).toMatchObject({
      brokerAddress: 'a:10911',
      brokerName: 'broker-a',
      topic: 'orders',
      msgId: 'ABC',
      transactionId: 'ABC',
      tranStateTableOffset: 7,
      commitLogOffset: 4096
    })
    expect(check.message.properties).toMatchObject({ PGROUP: 'pg', TRAN_MSG: 'true' })
  })

  it('names the broker and the missing part of a malformed check', () => {
    expect(() =>
      parseTransactionCheck('a:10911', command({ tranStateTableOffset: '7', commitLogOffset: 'x' }))
    ).toThrow(/a:10911.*commitLogOffset/)
    expect(() =>
      parseTransactionCheck(
        'a:10911',
        command({ tranStateTableOffset: '7', commitLogOffset: '1' }, false)
      )
    ).toThrow(BadResponseError)
  })
})
