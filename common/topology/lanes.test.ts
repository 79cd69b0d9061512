import { describe, expect, it } from 'vitest'
import {
  CLIENT_LANES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  isJavaLane,
  JAVA_LANES,
  LANE_TRAITS,
  laneRequestTimeoutMs,
  NODE_LANES,
  usesGrpcSdk
} from './lanes'
import { needsTimerWheel } from './model'
import { clientLaneSchema, topologySettingsSchema } from './schema'

describe('client lanes', () => {
  it('lists every lane once, in the order users see them', () => {
    expect(CLIENT_LANES).toEqual([
      'remoting',
      'java',
      'java-zone',
      'java-tuned',
      'java-dr',
      'grpc',
      'baseline'
    ])
  })

  it('hosts the java lanes in the Java client worker and the rest in a Node room worker', () => {
    expect(CLIENT_LANES.filter(isJavaLane)).toEqual(['java', 'java-zone', 'java-tuned', 'java-dr'])
    expect(JAVA_LANES).toEqual(['java', 'java-zone', 'java-tuned', 'java-dr'])
    expect(NODE_LANES).toEqual(['remoting', 'grpc', 'baseline'])
  })

  it('caps a request at 1 s on java-dr (a JVM client stalls past 400 ms), at ours elsewhere', () => {
    expect(Object.fromEntries(CLIENT_LANES.map((l) => [l, laneRequestTimeoutMs(l)]))).toEqual({
      remoting: 400,
      java: 400,
      'java-zone': 400,
      'java-tuned': 400,
      'java-dr': 1000,
      grpc: 400,
      baseline: 400
    })
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(400)
  })

  it('loads rocketmq-client-nodejs for the gRPC lanes only', () => {
    expect(CLIENT_LANES.filter(usesGrpcSdk)).toEqual(['grpc', 'baseline'])
  })

  it('needs zone-pinned proxies for grpc, any proxy for baseline, none for the others', () => {
    expect(Object.fromEntries(CLIENT_LANES.map((l) => [l, LANE_TRAITS[l].proxies]))).toEqual({
      remoting: 'none',
      java: 'none',
      'java-zone': 'none',
      'java-tuned': 'none',
      'java-dr': 'none',
      grpc: 'zone-pinned',
      baseline: 'any'
    })
  })

  it('every SDK lane runs in Node (the SDK is a Node library)', () => {
    for (const lane of CLIENT_LANES.filter(usesGrpcSdk)) expect(isJavaLane(lane)).toBe(false)
  })

  it('is the topology schema enum', () => {
    for (const lane of CLIENT_LANES) expect(clientLaneSchema.parse(lane)).toBe(lane)
    expect(clientLaneSchema.safeParse('java-fast').success).toBe(false)
  })
})

describe('needsTimerWheel', () => {
  it('runs the wheel when asked, or when live runs send delayed messages', () => {
    const t = (settings: object) =>
      needsTimerWheel({
        settings: { ...topologySettingsSchema.parse({}), ...settings }
      })
    expect(t({})).toBe(false)
    expect(t({ messages: 'ordered' })).toBe(false)
    expect(t({ timerWheel: true })).toBe(true)
    expect(t({ messages: 'delayed' })).toBe(true)
  })
})
