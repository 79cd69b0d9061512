import { describe, expect, it } from 'vitest'
import { FakeExec } from './fake-exec'
import type { NetworkSupport } from './support'
import { chooseNetworkMode, detectNetworkSupport } from './support'

const ROOT_CAPS = (1n << 12n) | (1n << 21n)

describe('detectNetworkSupport', () => {
  it('says what is missing and how to grant it, one line each', async () => {
    const exec = new FakeExec()
    expect(await detectNetworkSupport(exec, { platform: 'darwin' })).toMatchObject({
      ok: false,
      missing: expect.stringContaining('darwin')
    })
    const notRoot = await detectNetworkSupport(exec, { platform: 'linux', capEff: 0n })
    expect(notRoot).toMatchObject({
      ok: false,
      fix: expect.stringContaining('run DR Studio as root')
    })
    const noNft = new FakeExec()
    noNft.responders.push((cmd) =>
      cmd === 'nft --version' ? { code: 127, stderr: 'ENOENT' } : undefined
    )
    expect(await detectNetworkSupport(noNft, { platform: 'linux', capEff: ROOT_CAPS })).toEqual({
      ok: false,
      missing: 'nftables (the `nft` command)',
      fix: 'apt-get install nftables (`npm run setup` does it when run as root)'
    })
    for (const r of [notRoot]) if (!r.ok) expect(`${r.missing} ${r.fix}`).not.toContain('\n')
  })

  it('probes the kernel in a throw-away namespace and always removes it', async () => {
    const exec = new FakeExec()
    exec.responders.push((cmd) =>
      cmd.startsWith('tc -n drs-probe-7 qdisc add dev v0 root handle 1: htb')
        ? { code: 2, stderr: 'Error: Specified qdisc kind is unknown.' }
        : undefined
    )
    const r = await detectNetworkSupport(exec, {
      platform: 'linux',
      capEff: ROOT_CAPS,
      pid: 7,
      tunDevice: true
    })
    expect(r).toMatchObject({
      ok: false,
      missing: expect.stringContaining('HTB traffic shaping'),
      fix: expect.stringContaining('sch_htb')
    })
    expect(exec.namespaces.size).toBe(0)
    expect(exec.commands(/netns (add|del) drs-probe-7/)).toEqual([
      'ip netns del drs-probe-7',
      'ip netns add drs-probe-7',
      'ip netns del drs-probe-7'
    ])
  })

  it('picks netem when it works, else the TUN router, and reports a missing router separately', async () => {
    const opts = { platform: 'linux' as const, capEff: ROOT_CAPS, pid: 7, tunDevice: true }
    const netem = new FakeExec()
    netem.responders.push((cmd) => (cmd.includes('netem') ? { code: 0 } : undefined))
    expect(await detectNetworkSupport(netem, opts)).toEqual({
      ok: true,
      delay: { mechanism: 'netem' }
    })
    expect(
      await detectNetworkSupport(new FakeExec(), { ...opts, delayRouter: process.execPath })
    ).toEqual({ ok: true, delay: { mechanism: 'tun' } })
    expect(
      await detectNetworkSupport(new FakeExec(), {
        ...opts,
        delayRouter: '/nonexistent/drs-delay-router'
      })
    ).toMatchObject({
      ok: true,
      delay: { mechanism: null, fix: expect.stringContaining('npm run setup') }
    })
    expect(await detectNetworkSupport(new FakeExec(), { ...opts, tunDevice: false })).toMatchObject(
      { ok: true, delay: { mechanism: null } }
    )
  })
})

describe('chooseNetworkMode', () => {
  const yes: NetworkSupport = { ok: true, delay: { mechanism: 'tun' } }
  const noDelay: NetworkSupport = {
    ok: true,
    delay: { mechanism: null, missing: 'the delay router', fix: 'build it' }
  }
  const no: NetworkSupport = {
    ok: false,
    missing: 'nftables (the `nft` command)',
    fix: 'apt-get install nftables'
  }

  it('covers every setting against every support answer', () => {
    expect(chooseNetworkMode('auto', yes)).toEqual({ mode: 'namespaces', notice: null })
    expect(chooseNetworkMode('namespaces', yes)).toEqual({ mode: 'namespaces', notice: null })
    expect(chooseNetworkMode('auto', noDelay)).toEqual({
      mode: 'namespaces',
      notice: 'latency faults disabled: missing the delay router; fix: build it'
    })
    expect(chooseNetworkMode('auto', no)).toEqual({
      mode: 'loopback',
      notice:
        'rooms share loopback: missing nftables (the `nft` command); fix: apt-get install nftables',
      faultsDisabled: 'network faults disabled: nftables (the `nft` command)'
    })
    expect(chooseNetworkMode('namespaces', no)).toEqual({
      mode: 'error',
      error:
        'network.mode is "namespaces" but nftables (the `nft` command) is missing; fix: apt-get install nftables'
    })
    for (const s of [yes, noDelay, no]) {
      expect(chooseNetworkMode('loopback', s)).toMatchObject({
        mode: 'loopback',
        notice: null,
        faultsDisabled: expect.stringContaining('"loopback"')
      })
    }
  })
})
