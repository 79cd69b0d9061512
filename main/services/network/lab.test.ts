import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FakeExec } from './fake-exec'
import type { NetworkLabOptions } from './lab'
import { NetworkLab } from './lab'
import { planNetwork } from './plan'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function setup(opts: NetworkLabOptions = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'drs-lab-'))
  dirs.push(stateDir)
  const exec = new FakeExec()
  const signals: [number, string][] = []
  const lab = new NetworkLab({
    exec,
    stateDir,
    pid: 5000,
    delayRouter: process.execPath,
    isOwnerAlive: () => true,
    pidAlive: () => false,
    signal: (pid, sig) => signals.push([pid, sig]),
    now: () => 1_700_000_000_000,
    ...opts
  })
  const plan = planNetwork({
    instance: 0,
    rooms: ['room1', 'room2'],
    nodes: [
      { id: 'a1', room: 'room1' },
      { id: 'b1', room: 'room2' }
    ]
  })
  return { lab, exec, plan, stateDir, signals }
}

describe('NetworkLab lifecycle', () => {
  it('claims, checks, builds, and records its owner; down removes everything it made', async () => {
    const { lab, exec, plan, stateDir } = setup()
    await lab.up(plan)
    expect(JSON.parse(readFileSync(join(stateDir, '0.json'), 'utf8'))).toMatchObject({
      instance: 0,
      pid: 5000,
      slice: '198.18.0.0/20'
    })
    const cmds = exec.commands()
    expect(cmds.indexOf('ip -j -4 route show table all')).toBeLessThan(cmds.indexOf('ip -batch -'))
    expect([...exec.namespaces].sort()).toEqual([
      'drs-0-core',
      'drs-0-n-a1',
      'drs-0-n-b1',
      'drs-0-r-room1',
      'drs-0-r-room2'
    ])
    expect(exec.links).toEqual(new Set(['drs0-host']))
    expect(lab.delayMechanism).toBe('tun')
    expect(lab.spawnPrefix('b1')).toEqual(['ip', 'netns', 'exec', 'drs-0-n-b1'])
    expect(lab.addressOf('b1')).toBe('198.18.2.10')
    expect(lab.engineAddress()).toBe('198.18.0.1')
    await lab.down()
    expect(exec.namespaces.size).toBe(0)
    expect(exec.links.size).toBe(0)
    expect(existsSync(join(stateDir, '0.json'))).toBe(false)
    expect(lab.current).toBeNull()
  })

  it('refuses a clashing slice with the clash and the fix, and leaves nothing behind', async () => {
    const { lab, exec, plan, stateDir } = setup()
    exec.responders.push((cmd) =>
      cmd === 'ip -j -4 route show table all'
        ? {
            stdout: JSON.stringify([
              { dst: 'default', dev: 'eth0' },
              { dst: '198.18.0.0/16', dev: 'vpn0' }
            ])
          }
        : undefined
    )
    await expect(lab.up(plan)).rejects.toThrow(
      /clash with route 198\.18\.0\.0\/16 dev vpn0 on this machine; set DRSTUDIO_NET_RANGE/
    )
    expect(exec.commands(/netns add/)).toEqual([])
    expect(existsSync(join(stateDir, '0.json'))).toBe(false)
  })

  it('tears down what it built when a step fails midway, naming the step', async () => {
    const { lab, exec, plan } = setup()
    exec.responders.push((cmd) =>
      cmd === 'ip -n drs-0-r-room2 -batch -'
        ? { code: 1, stderr: 'RTNETLINK answers: File exists' }
        : undefined
    )
    await expect(lab.up(plan)).rejects.toThrow(
      'could not set up room room2: `ip -n drs-0-r-room2 -batch -` exited with 1: RTNETLINK answers: File exists'
    )
    expect(exec.namespaces.size).toBe(0)
    expect(exec.links.size).toBe(0)
  })

  it('will not take an instance a live process holds, and claims the next free one instead', async () => {
    const a = setup()
    const b = new NetworkLab({
      exec: a.exec,
      stateDir: a.stateDir,
      pid: 6000,
      isOwnerAlive: () => true
    })
    await a.lab.up(a.plan)
    await expect(b.up(a.plan)).rejects.toThrow(
      /instance 0 \(198\.18\.0\.0\/20\) is in use by DR Studio process 5000/
    )
    expect((await b.plan({ rooms: ['x'], nodes: [] })).instance).toBe(1)
  })

  it('takes over an instance whose owner died, removing its leftovers first', async () => {
    const { lab, exec, stateDir } = setup({ isOwnerAlive: () => false })
    writeFileSync(
      join(stateDir, '0.json'),
      JSON.stringify({
        version: 1,
        instance: 0,
        pid: 1234,
        pidStart: '1',
        slice: '198.18.0.0/20',
        createdAt: ''
      })
    )
    exec.namespaces.add('drs-0-core')
    exec.links.add('drs0-host')
    expect(await lab.claim()).toBe(0)
    expect(exec.namespaces.size).toBe(0)
    expect(exec.links.size).toBe(0)
    expect(JSON.parse(readFileSync(join(stateDir, '0.json'), 'utf8')).pid).toBe(5000)
  })

  it('downSync kills what runs inside with SIGKILL and deletes synchronously', async () => {
    const { lab, exec, plan, signals } = setup()
    await lab.up(plan)
    await lab.apply({ action: 'delay', target: 'room1', peer: 'room2', latencyMs: 5 })
    exec.responders.push((cmd) =>
      cmd === 'ip netns pids drs-0-n-a1' ? { stdout: '4321\n' } : undefined
    )
    lab.downSync()
    expect(signals).toEqual([[4321, 'SIGKILL']])
    expect(exec.namespaces.size).toBe(0)
    expect(exec.links.size).toBe(0)
  })
})

describe('NetworkLab faults', () => {
  it('changes only the rules a fault touches and resets them on heal', async () => {
    const { lab, exec, plan } = setup()
    await lab.up(plan)
    exec.clear()
    const f = await lab.apply({
      action: 'partition',
      target: 'room1',
      peer: 'room2',
      mode: 'reject'
    })
    expect(f).toEqual({
      id: 'f1',
      fault: {
        action: 'partition',
        target: 'room1',
        peer: 'room2',
        direction: 'both',
        mode: 'reject'
      },
      scope: 'room',
      appliedAt: 1_700_000_000_000
    })
    expect(exec.commands()).toEqual(['ip netns exec drs-0-core nft -f -'])
    expect(exec.calls[0]!.input).toContain(
      'ip saddr 198.18.1.0/24 ip daddr 198.18.2.0/24 meta l4proto tcp reject with tcp reset'
    )
    exec.clear()
    await lab.apply({ action: 'partition', target: 'a1', peer: 'b1', direction: 'to' })
    expect(exec.commands()).toEqual(['ip netns exec drs-0-n-a1 nft -f -'])
    exec.clear()
    expect((await lab.heal({ target: 'room2', peer: 'room1' })).map((x) => x.id)).toEqual(['f1'])
    expect(exec.commands()).toEqual(['ip netns exec drs-0-core nft -f -'])
    expect(exec.calls[0]!.input).toBe('table inet drstudio {}\ndelete table inet drstudio\n')
    expect(lab.activeFaults().map((x) => x.id)).toEqual(['f2'])
  })

  it('feeds the delay router before routing into it, and unroutes before clearing', async () => {
    const { lab, exec, plan } = setup()
    await lab.up(plan)
    exec.clear()
    await lab.apply({
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      latencyMs: 20,
      jitterMs: 2,
      direction: 'to'
    })
    expect(exec.started.map((s) => s.argv)).toEqual([
      ['ip', 'netns', 'exec', 'drs-0-core', process.execPath, 'drstun']
    ])
    expect(exec.commands()).toEqual([
      'ip -n drs-0-core route replace default dev drstun table 100',
      'router: set 198.18.1.0/24 198.18.2.0/24 20000 2000',
      'ip -n drs-0-core rule add pref 1018 iif r1 from 198.18.1.0/24 to 198.18.2.0/24 lookup 100'
    ])
    exec.clear()
    await lab.apply({
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      latencyMs: 30,
      direction: 'to'
    })
    expect(exec.commands()).toEqual(['router: set 198.18.1.0/24 198.18.2.0/24 30000 0'])
    exec.clear()
    await lab.heal()
    expect(exec.commands()).toEqual([
      'ip -n drs-0-core rule del pref 1018 iif r1 from 198.18.1.0/24 to 198.18.2.0/24 lookup 100',
      'router: clear 198.18.1.0/24 198.18.2.0/24'
    ])
    expect(lab.ownPids()).toEqual([90001])
    await lab.down()
    expect(exec.started[0]!.closed).toBe(true)
  })

  it('uses netem leaves on the uplinks where the kernel has netem', async () => {
    const { lab, exec, plan } = setup({ delay: 'netem' })
    await lab.up(plan)
    exec.clear()
    await lab.apply({
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      latencyMs: 20,
      direction: 'from'
    })
    expect(exec.started).toEqual([])
    expect(exec.commands()).toEqual([
      'tc -n drs-0-core qdisc del dev r1 root',
      'tc -n drs-0-core -batch -'
    ])
    expect(exec.calls[1]!.input).toContain(
      'qdisc add dev r1 parent 1:12 handle 12: netem delay 20ms limit 10000'
    )
  })

  it('rolls back a fault whose rules fail and says which fault', async () => {
    const { lab, exec, plan } = setup()
    await lab.up(plan)
    await lab.apply({ action: 'loss', target: 'room1', peer: 'room2', lossPct: 10 })
    exec.responders.push((cmd) =>
      cmd === 'ip netns exec drs-0-core nft -f -'
        ? { code: 1, stderr: 'Error: Could not process rule' }
        : undefined
    )
    await expect(lab.apply({ action: 'isolate', target: 'room2', mode: 'reject' })).rejects.toThrow(
      'could not apply isolate room2 (reject): could not set up the room-link rules: `ip netns exec drs-0-core nft -f -` exited with 1: Error: Could not process rule'
    )
    expect(lab.activeFaults().map((f) => f.fault.action)).toEqual(['loss'])
    expect(lab.links()[0]!.ab).toMatchObject({ blocked: null, lossPct: 10 })
  })

  it('refuses what it cannot do, naming the fix', async () => {
    const { lab, plan } = setup()
    await expect(lab.apply({ action: 'isolate', target: 'room1' })).rejects.toThrow(
      'the network lab is not up; call up(plan) first'
    )
    await lab.up(plan)
    await expect(lab.apply({ action: 'heal' })).rejects.toThrow('call heal(selector) instead')
    await expect(
      lab.apply({ action: 'loss', target: 'room1', peer: 'room2', lossPct: 120 } as never)
    ).rejects.toThrow(/lossPct/)
    await expect(
      lab.apply({ action: 'delay', target: 'a1', peer: 'b1', latencyMs: 5 })
    ).rejects.toThrow(/target its room "room1"/)
    expect(() => lab.spawnPrefix('zz')).toThrow(
      'node "zz" is not in the network lab (nodes: a1, b1)'
    )
    await expect(lab.up(plan)).rejects.toThrow(/already up/)
  })

  it('applies configured link shapes at up and keeps them through heal', async () => {
    const { lab, exec } = setup()
    const plan = planNetwork({
      instance: 0,
      rooms: ['room1', 'room2'],
      nodes: [],
      network: { mode: 'auto', links: { default: { lossPct: 1, bandwidthMbit: 100 } } }
    })
    await lab.up(plan)
    expect(exec.calls.find((c) => c.cmd === 'ip netns exec drs-0-core nft -f -')!.input).toContain(
      'numgen random mod 10000 < 100 drop'
    )
    expect(exec.commands(/tc -n drs-0-core -batch -/)).toHaveLength(2)
    await lab.apply({ action: 'loss', target: 'room1', peer: 'room2', lossPct: 50 })
    exec.clear()
    await lab.heal()
    expect(exec.calls[0]!.input).toContain('numgen random mod 10000 < 100 drop')
  })
})

describe('NetworkLab.sweep', () => {
  it('removes dead owners’ labs and stale probes, never a live owner’s', async () => {
    const { exec, stateDir, signals } = setup()
    const rec = (instance: number, pid: number) =>
      writeFileSync(
        join(stateDir, `${instance}.json`),
        JSON.stringify({ version: 1, instance, pid, pidStart: null, slice: '', createdAt: '' })
      )
    rec(0, 111)
    rec(1, 222)
    for (const ns of ['drs-0-core', 'drs-0-n-a', 'drs-1-core', 'drs-2-core', 'drs-probe-333'])
      exec.namespaces.add(ns)
    exec.links.add('drs0-host')
    exec.links.add('drs1-host')
    exec.responders.push((cmd) =>
      cmd === 'ip netns pids drs-0-n-a' ? { stdout: '777\n' } : undefined
    )
    const lab = new NetworkLab({
      exec,
      stateDir,
      pid: 5000,
      isOwnerAlive: (r) => r.pid === 222,
      pidAlive: () => false,
      signal: (pid, sig) => signals.push([pid, sig])
    })
    const swept = await lab.sweep()
    expect(swept.instances).toEqual([0, 2])
    expect([...exec.namespaces]).toEqual(['drs-1-core'])
    expect([...exec.links]).toEqual(['drs1-host'])
    expect(existsSync(join(stateDir, '0.json'))).toBe(false)
    expect(existsSync(join(stateDir, '1.json'))).toBe(true)
    expect(signals).toEqual([[777, 'SIGTERM']])
  })
})

describe('NetworkLab delay router recovery', () => {
  it('starts a fresh router and re-adds the rules when the old one died', async () => {
    const { lab, exec, plan } = setup()
    await lab.up(plan)
    await lab.apply({
      action: 'delay',
      target: 'room1',
      peer: 'room2',
      latencyMs: 10,
      direction: 'to'
    })
    exec.routers[0]!.die()
    await new Promise((r) => setTimeout(r, 0))
    exec.clear()
    await lab.apply({
      action: 'delay',
      target: 'room2',
      peer: 'room1',
      latencyMs: 10,
      direction: 'to'
    })
    expect(exec.started).toHaveLength(2)
    expect(exec.commands()).toEqual([
      'ip -n drs-0-core rule del pref 1018 iif r1 from 198.18.1.0/24 to 198.18.2.0/24 lookup 100',
      'ip -n drs-0-core route replace default dev drstun table 100',
      'router: set 198.18.1.0/24 198.18.2.0/24 10000 0',
      'ip -n drs-0-core rule add pref 1018 iif r1 from 198.18.1.0/24 to 198.18.2.0/24 lookup 100',
      'router: set 198.18.2.0/24 198.18.1.0/24 10000 0',
      'ip -n drs-0-core rule add pref 1033 iif r2 from 198.18.2.0/24 to 198.18.1.0/24 lookup 100'
    ])
  })
})
