import { describe, expect, it } from 'vitest'
import { PortBusyError, SandboxError } from './errors'
import type { PortProbe } from './ports'
import { allocatePorts, boundPorts } from './ports'

const probe = (busy: number[] = []): PortProbe & { asked: number[] } => {
  const asked: number[] = []
  return {
    asked,
    isFree: async (p) => {
      asked.push(p)
      return !busy.includes(p)
    }
  }
}

describe('boundPorts', () => {
  it('includes the fast channel and HA ports of a broker', () => {
    expect(boundPorts('broker', 10911)).toEqual([10909, 10911, 10912])
    expect(boundPorts('proxy', 8081)).toEqual([8081, 8082])
    expect(boundPorts('proxy', 8081, 9000)).toEqual([8081, 9000])
    expect(boundPorts('nameserver', 9876)).toEqual([9876])
  })
})

describe('allocatePorts', () => {
  it('gives each node its own aligned block, all bound ports free', async () => {
    const out = await allocatePorts(
      [
        { nodeId: 'ns-1', kind: 'nameserver' },
        { nodeId: 'broker-1', kind: 'broker' },
        { nodeId: 'mgmt-1', kind: 'management' }
      ],
      probe(),
      { range: [20000, 20100], random: () => 0 }
    )
    expect(out.get('ns-1')).toMatchObject({ port: 20002, ports: [20002], explicit: false })
    expect(out.get('broker-1')).toMatchObject({ port: 20006, ports: [20004, 20006, 20007] })
    expect(out.get('mgmt-1')?.port).toBe(20010)
  })

  it('skips a block when any port the broker binds is taken', async () => {
    const out = await allocatePorts([{ nodeId: 'b', kind: 'broker' }], probe([20001 + 2]), {
      range: [20000, 20100],
      random: () => 0
    })
    // block 20000-20003 has 20003 (HA of 20002) busy
    expect(out.get('b')?.port).toBe(20006)
  })

  it('never hands out reserved ports', async () => {
    const out = await allocatePorts([{ nodeId: 'ns', kind: 'nameserver' }], probe(), {
      range: [20000, 20100],
      random: () => 0,
      reserved: [20002]
    })
    expect(out.get('ns')?.port).toBe(20006)
  })

  it('honours explicit ports and checks every port the node binds', async () => {
    const p = probe()
    const out = await allocatePorts([{ nodeId: 'b', kind: 'broker', port: 10911 }], p)
    expect(out.get('b')).toMatchObject({
      port: 10911,
      ports: [10909, 10911, 10912],
      explicit: true
    })
    expect(p.asked).toEqual([10909, 10911, 10912])
  })

  it('names the node, the port and the fix when an explicit port is busy', async () => {
    const err = await allocatePorts(
      [{ nodeId: 'broker-1', kind: 'broker', port: 10911, path: '$.rooms[0].brokers[0]' }],
      probe([10912])
    ).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PortBusyError)
    const e = err as PortBusyError
    expect(e.nodeId).toBe('broker-1')
    expect(e.port).toBe(10912)
    expect(e.message).toContain('Port 10912 of node broker-1 is already in use')
    expect(e.message).toContain('HA')
    expect(e.message).toContain('$.rooms[0].brokers[0]')
    expect(e.message).toContain('remove "port"')
  })

  it('rejects two nodes claiming the same explicit port', async () => {
    await expect(
      allocatePorts(
        [
          { nodeId: 'a', kind: 'nameserver', port: 9876 },
          { nodeId: 'b', kind: 'broker', port: 9878 }
        ],
        probe()
      )
    ).rejects.toThrow(/9876 of node b is also used by another node/)
  })

  it('fails clearly when the range is exhausted', async () => {
    const err = await allocatePorts([{ nodeId: 'b', kind: 'broker' }], probe([20002]), {
      range: [20000, 20004],
      random: () => 0
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SandboxError)
    expect((err as SandboxError).code).toBe('no-free-port')
  })
})

describe('controller ports', () => {
  it('binds a controller on its port and a name server that embeds one on two', () => {
    expect(boundPorts('controller', 9878)).toEqual([9878])
    expect(boundPorts('nameserver', 9876, 9878)).toEqual([9876, 9878])
  })

  it('gives an embedded controller the port next to its name server', async () => {
    const out = await allocatePorts(
      [
        { nodeId: 'ns-1', kind: 'nameserver', controllerPort: true },
        { nodeId: 'ctl-2', kind: 'controller' }
      ],
      probe(),
      { range: [20000, 20100], random: () => 0 }
    )
    expect(out.get('ns-1')).toMatchObject({
      port: 20002,
      controllerPort: 20003,
      ports: [20002, 20003]
    })
    expect(out.get('ctl-2')).toMatchObject({ port: 20006, ports: [20006] })
    expect(out.get('ctl-2')!.controllerPort).toBeUndefined()
  })

  it('honours an explicit controller port and checks it is free', async () => {
    const out = await allocatePorts(
      [{ nodeId: 'ns-1', kind: 'nameserver', port: 9876, controllerPort: 9878 }],
      probe()
    )
    expect(out.get('ns-1')).toMatchObject({ port: 9876, controllerPort: 9878, explicit: true })
    await expect(
      allocatePorts(
        [{ nodeId: 'ns-1', kind: 'nameserver', port: 9876, controllerPort: 9878 }],
        probe([9878])
      )
    ).rejects.toThrow(/Port 9878 of node ns-1 is already in use/)
  })

  it('refuses half-explicit placements, naming the node and the fix', async () => {
    await expect(
      allocatePorts([{ nodeId: 'ns-1', kind: 'nameserver', controllerPort: 9878 }], probe())
    ).rejects.toThrow(/ns-1 sets "controller.port" but not "port"/)
    await expect(
      allocatePorts(
        [{ nodeId: 'ns-1', kind: 'nameserver', port: 9876, controllerPort: true }],
        probe()
      )
    ).rejects.toThrow(/add "controller": \{ "port": … \}/)
  })
})
