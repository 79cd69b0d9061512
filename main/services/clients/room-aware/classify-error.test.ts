import { describe, expect, it } from 'vitest'
import {
  ConnectFailedError,
  ConnectionClosedError,
  RemoteError,
  RemotingTimeoutError,
  BadResponseError
} from '../../remoting/errors'
import { classifyFailure } from './classify-error'

describe('classifyFailure', () => {
  it('refused, reset and timeout isolate the broker and retry elsewhere', () => {
    expect(classifyFailure(new ConnectFailedError('a:1', 'ECONNREFUSED'))).toEqual({
      reason: 'refused',
      retry: true,
      isolate: true
    })
    expect(classifyFailure(new ConnectionClosedError('a:1', 'reset'))).toEqual({
      reason: 'reset',
      retry: true,
      isolate: true
    })
    expect(classifyFailure(new RemotingTimeoutError('a:1', 310, 400))).toEqual({
      reason: 'timeout',
      retry: true,
      isolate: true
    })
  })
  it('retryable broker codes isolate; others fail the send', () => {
    for (const code of [1, 2, 14, 17, 1500]) {
      expect(classifyFailure(new RemoteError('a:1', 310, code))).toMatchObject({
        retry: true,
        isolate: true
      })
    }
    expect(classifyFailure(new RemoteError('a:1', 310, 13))).toEqual({
      reason: 'code-13',
      retry: false,
      isolate: false
    })
  })
  it('anything else retries without isolating', () => {
    expect(classifyFailure(new BadResponseError('a:1', 'x'))).toEqual({
      reason: 'error',
      retry: true,
      isolate: false
    })
    expect(classifyFailure(new Error('boom'))).toEqual({
      reason: 'error',
      retry: true,
      isolate: false
    })
    expect(classifyFailure(undefined)).toEqual({ reason: 'error', retry: true, isolate: false })
  })
})
