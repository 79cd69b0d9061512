import { describe, expect, it } from 'vitest'
import { controllerModeSchema } from '../../../common/topology/schema'
import { brokerProperties } from './config'
import {
  controllerAddrText,
  controllerPeers,
  controllerProperties,
  embeddedControllerProperties,
  peersText,
  replicaProperties
} from './controller-config'
import { electionWaves } from './controller-readiness'

const peers = controllerPeers([
  { nodeId: 'ns-1', host: '10.1.0.2', port: 9878 },
  { nodeId: 'ns-2', host: '10.2.0.2', port: 9878 },
  { nodeId: 'ctl-3', host: '10.3.0.2', port: 9878 }
])

describe('controller properties', () => {
  it('names the quorum n0, n1, … (DLedger splits a peer at its first "-") in document order', () => {
    expect(peers.map((p) => [p.nodeId, p.selfId])).toEqual([
      ['ns-1', 'n0'],
      ['ns-2', 'n1'],
      ['ctl-3', 'n2']
    ])
    expect(peersText(peers)).toBe('n0-10.1.0.2:9878;n1-10.2.0.2:9878;n2-10.3.0.2:9878')
    expect(controllerAddrText(peers)).toBe('10.1.0.2:9878;10.2.0.2:9878;10.3.0.2:9878')
  })

  it('writes a standalone controller on its peer port, its store in its folder', () => {
    const p = controllerProperties({
      self: peers[2]!,
      peers,
      nodeDir: '/run/ctl-3',
      fastScan: true
    })
    expect(p).toMatchObject({
      listenPort: 9878,
      bindAddress: '10.3.0.2',
      controllerDLegerGroup: 'drstudio',
      controllerDLegerSelfId: 'n2',
      controllerDLegerPeers: peersText(peers),
      controllerStorePath: '/run/ctl-3/controller-store',
      mappedFileSize: 16 * 1024 * 1024,
      enableElectUncleanMaster: false,
      scanNotActiveBrokerInterval: 1000,
      scanInactiveMasterInterval: 2000
    })
  })

  it('adds enableControllerInNamesrv and the quorum keys, not a second listen port, when embedded', () => {
    const mode = controllerModeSchema.parse({ group: 'g1', enableElectUncleanMaster: true })
    const p = embeddedControllerProperties({
      self: peers[0]!,
      peers,
      nodeDir: '/n',
      mode,
      fastScan: false
    })
    expect(p).toMatchObject({
      enableControllerInNamesrv: true,
      controllerDLegerGroup: 'g1',
      controllerDLegerSelfId: 'n0',
      enableElectUncleanMaster: true,
      scanNotActiveBrokerInterval: 5000,
      scanInactiveMasterInterval: 2000
    })
    expect(p).not.toHaveProperty('listenPort')
  })
})

describe('replica broker properties', () => {
  it('has no fixed id or role, knows every controller and how writes are acknowledged', () => {
    const mode = controllerModeSchema.parse({ allAckInSyncStateSet: false, inSyncReplicas: 2 })
    expect(replicaProperties({ peers, mode, electionPriority: 2 })).toEqual({
      brokerId: -1,
      brokerRole: 'SLAVE',
      enableControllerMode: true,
      controllerAddr: controllerAddrText(peers),
      allAckInSyncStateSet: false,
      inSyncReplicas: 2,
      minInSyncReplicas: 1,
      enableAutoInSyncReplicas: false,
      controllerHeartBeatTimeoutMills: 10000,
      haSendHeartbeatInterval: 1000,
      syncControllerMetadataPeriod: 2000,
      brokerElectionPriority: 2
    })
    expect(replicaProperties({ peers })).not.toHaveProperty('brokerElectionPriority')
  })

  it('replaces the acting-master liveness of master/slave brokers in broker.conf', () => {
    const p = brokerProperties({
      cluster: 'C',
      brokerName: 'broker-a',
      brokerId: -1,
      role: 'replica',
      replica: { peers },
      port: 20002,
      nodeDir: '/n',
      discovery: { mode: 'static', namesrvAddr: ['ns:9876'] },
      fastBrokerExpiry: true
    })
    expect(p).toMatchObject({ brokerId: -1, brokerRole: 'SLAVE', enableControllerMode: true })
    expect(p).not.toHaveProperty('enableSlaveActingMaster')
    expect(p.namesrvAddr).toBe('ns:9876')
  })
})

describe('electionWaves', () => {
  const b = (id: string, brokerName: string, role: string, electionPriority?: number) => ({
    id,
    node: {
      kind: 'broker',
      spec: { brokerName, role, ...(electionPriority ? { electionPriority } : {}) }
    }
  })

  it('boots each group’s preferred replica (and every other broker) first', () => {
    const [first, later] = electionWaves([
      b('a1', 'a', 'replica', 1),
      b('a2', 'a', 'replica', 2),
      b('b1', 'b', 'replica', 3),
      b('b2', 'b', 'replica', 1),
      b('m', 'c', 'master'),
      b('x1', 'x', 'replica'),
      b('x2', 'x', 'replica')
    ])
    expect(first.map((x) => x.id)).toEqual(['a1', 'b2', 'm', 'x1', 'x2'])
    expect(later.map((x) => x.id)).toEqual(['a2', 'b1'])
  })

  it('keeps ties together and leaves topologies without priorities in one wave', () => {
    const [first, later] = electionWaves([b('a1', 'a', 'replica', 1), b('a2', 'a', 'replica', 1)])
    expect(first).toHaveLength(2)
    expect(later).toEqual([])
  })
})
