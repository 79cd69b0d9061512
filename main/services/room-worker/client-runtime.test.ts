import { describe, expect, it } from 'vitest'
import type { GrpcSdk } from '../clients/grpc-lane/sdk-port'
import { systemClock } from '../clients/room-aware/ports'
import { FakeCluster, FakeManagement } from '../clients/room-aware/test-fakes'
import { ClientRuntime } from './client-runtime'
import type { ClientSpec } from '../worker-wire/protocol'
import { WireLedger } from './wire-ledger'

function spec(id: string, lane: ClientSpec['lane']): ClientSpec {
  return {
    id,
    role: 'producer',
    room: 'room1',
    lane,
    topic: 'T',
    group: 'G',
    roomOrder: ['room1'],
    managementNodes: [{ id: 'm', room: 'room1', url: 'http://127.0.0.1:9' }],
    nameServers: [],
    tag: 'dr',
    tuning: {},
    brokerRooms: {}
  }
}

function runtime(loadSdk?: () => Promise<GrpcSdk>): ClientRuntime {
  const fake = new FakeCluster()
  return new ClientRuntime({
    remoting: () => fake.remoting(),
    management: new FakeManagement([]),
    ledger: new WireLedger(
      () => {},
      () => 0
    ),
    clock: systemClock,
    onChoice: () => {},
    ...(loadSdk ? { loadSdk } : {})
  })
}

describe('client runtime: the gRPC SDK is loaded on demand', () => {
  it('never loads it for remoting clients, and once for gRPC ones', async () => {
    let loads = 0
    const sdk = {} as GrpcSdk
    const rt = runtime(async () => {
      loads++
      return sdk
    })
    await rt.create({ spec: spec('r1', 'remoting') })
    expect(loads).toBe(0)
    await rt.create({ spec: spec('g1', 'grpc') })
    await rt.create({ spec: spec('g2', 'baseline') })
    expect(loads).toBe(1)
  })

  it('names the missing package when it cannot be loaded or no loader is given', async () => {
    const failing = runtime(() => Promise.reject(new Error("Cannot find package 'x'")))
    await expect(failing.create({ spec: spec('g1', 'grpc') })).rejects.toThrow(
      /g1: the grpc lane needs rocketmq-client-nodejs \(Cannot find package/
    )
    await expect(runtime().create({ spec: spec('g2', 'baseline') })).rejects.toThrow(
      'g2: the baseline lane needs rocketmq-client-nodejs'
    )
  })
})
