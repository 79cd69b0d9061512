import { existsSync, readFileSync } from 'node:fs'
import type { NetworkMode } from '../../../common/topology/schema'
import { DELAY_ROUTER_FIX } from './delay-router'
import type { ExecPort } from './exec'
import { describeFailure } from './exec'
import { NAME_PREFIX } from './plan'
import type { DelayMechanism } from './rules'
import { blockStatements, lossStatement, replaceTable } from './rules'

export type DelaySupport =
  { mechanism: DelayMechanism } | { mechanism: null; missing: string; fix: string }

export type NetworkSupport =
  { ok: true; delay: DelaySupport } | { ok: false; missing: string; fix: string }

export interface SupportOptions {
  platform?: NodeJS.Platform
  /** Effective capabilities (CapEff of /proc/self/status); read from the OS when absent. */
  capEff?: bigint | null
  /** The built delay router; its absence only disables latency faults. */
  delayRouter?: string
  tunDevice?: boolean
  pid?: number
}

const CAP_NET_ADMIN = 12n
const CAP_SYS_ADMIN = 21n

function readCapEff(): bigint | null {
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return m ? BigInt(`0x${m[1]}`) : null
  } catch {
    return null
  }
}

/** Name of the throw-away namespace support probes use; swept by pid like any other leftover. */
export function probeNamespace(pid: number): string {
  return `${NAME_PREFIX}-probe-${pid}`
}

/** Whether `tc ... netem` works in `ns` (netem is a kernel module many kernels leave out). */
export async function probeNetem(exec: ExecPort, ns: string): Promise<boolean> {
  const add = await exec.run([
    'tc',
    '-n',
    ns,
    'qdisc',
    'add',
    'dev',
    'lo',
    'root',
    'netem',
    'delay',
    '1ms'
  ])
  if (add.code !== 0) return false
  await exec.run(['tc', '-n', ns, 'qdisc', 'del', 'dev', 'lo', 'root'])
  return true
}

/**
 * What rooms-as-networks needs here, checked for real in a throw-away namespace: Linux, root (or
 * CAP_NET_ADMIN + CAP_SYS_ADMIN), iproute2, nftables with the rules we use, veth, bridge, HTB.
 * Each miss is one line saying what and how to grant it; delay has its own answer because the
 * rest works without it.
 */
export async function detectNetworkSupport(
  exec: ExecPort,
  opts: SupportOptions = {}
): Promise<NetworkSupport> {
  const platform = opts.platform ?? process.platform
  if (platform !== 'linux') {
    return {
      ok: false,
      missing: `network namespaces (this is ${platform}, they are Linux-only)`,
      fix: 'run DR Studio on Linux for network faults; everything else works on loopback'
    }
  }
  const caps = opts.capEff === undefined ? readCapEff() : opts.capEff
  const has = (bit: bigint): boolean => caps !== null && ((caps >> bit) & 1n) === 1n
  if (!has(CAP_NET_ADMIN) || !has(CAP_SYS_ADMIN)) {
    return {
      ok: false,
      missing:
        'privileges to create network namespaces (not root, no CAP_NET_ADMIN + CAP_SYS_ADMIN)',
      fix: 'run DR Studio as root (e.g. `sudo -E npm start`), or in a container with --cap-add NET_ADMIN --cap-add SYS_ADMIN'
    }
  }
  if ((await exec.run(['ip', '-V'])).code !== 0) {
    return { ok: false, missing: 'iproute2 (the `ip` command)', fix: 'apt-get install iproute2' }
  }
  if ((await exec.run(['nft', '--version'])).code !== 0) {
    return {
      ok: false,
      missing: 'nftables (the `nft` command)',
      fix: 'apt-get install nftables (`npm run setup` does it when run as root)'
    }
  }
  const ns = probeNamespace(opts.pid ?? process.pid)
  await exec.run(['ip', 'netns', 'del', ns])
  try {
    return await probeKernel(exec, ns, opts)
  } finally {
    await exec.run(['ip', 'netns', 'del', ns])
  }
}

async function probeKernel(
  exec: ExecPort,
  ns: string,
  opts: SupportOptions
): Promise<NetworkSupport> {
  const checks: { what: string; fix: string; argv: string[]; input?: string }[] = [
    {
      what: 'network namespaces',
      fix: 'use a kernel with CONFIG_NET_NS and make /run/netns writable',
      argv: ['ip', 'netns', 'add', ns]
    },
    {
      what: 'veth and bridge devices',
      fix: 'load the veth and bridge modules (modprobe veth bridge)',
      argv: ['ip', '-n', ns, '-batch', '-'],
      input:
        'link add v0 type veth peer name v1\nlink add br0 type bridge\nlink set v0 master br0\nlink set v0 up\n'
    },
    {
      what: 'nftables rules (inet table, reject, numgen)',
      fix: 'load nf_tables, nft_reject_inet and nft_numgen (modprobe), or use a kernel with NF_TABLES',
      argv: ['ip', 'netns', 'exec', ns, 'nft', '-f', '-'],
      input: replaceTable([
        [
          '  chain f {',
          '    type filter hook forward priority 0; policy accept;',
          ...blockStatements('ip saddr 198.18.0.0/24', 'reject').map((r) => `    ${r}`),
          `    ${lossStatement('ip saddr 198.18.0.0/24', 30)}`,
          '  }'
        ].join('\n')
      ])
    },
    {
      what: 'HTB traffic shaping',
      fix: 'load sch_htb and cls_u32 (modprobe sch_htb cls_u32)',
      argv: [
        'tc',
        '-n',
        ns,
        'qdisc',
        'add',
        'dev',
        'v0',
        'root',
        'handle',
        '1:',
        'htb',
        'default',
        '1'
      ]
    }
  ]
  for (const c of checks) {
    const r = await exec.run(c.argv, c.input)
    if (r.code !== 0)
      return { ok: false, missing: `${c.what} (${describeFailure(c.argv, r)})`, fix: c.fix }
  }
  if (await probeNetem(exec, ns)) return { ok: true, delay: { mechanism: 'netem' } }
  const tun = opts.tunDevice ?? existsSync('/dev/net/tun')
  if (!tun) {
    return {
      ok: true,
      delay: {
        mechanism: null,
        missing: 'netem and /dev/net/tun (latency needs one of them)',
        fix: 'modprobe sch_netem, or modprobe tun'
      }
    }
  }
  if (opts.delayRouter !== undefined && !existsSync(opts.delayRouter)) {
    return {
      ok: true,
      delay: {
        mechanism: null,
        missing: `the delay router (${opts.delayRouter})`,
        fix: DELAY_ROUTER_FIX
      }
    }
  }
  return { ok: true, delay: { mechanism: 'tun' } }
}

export type ModeChoice =
  | { mode: 'namespaces'; notice: string | null }
  | { mode: 'loopback'; notice: string | null; faultsDisabled: string }
  | { mode: 'error'; error: string }

/**
 * `auto` takes namespaces when they work and otherwise runs on loopback with one line saying what
 * is missing and how to grant it; `namespaces` insists; `loopback` never tries.
 */
export function chooseNetworkMode(setting: NetworkMode, support: NetworkSupport): ModeChoice {
  if (setting === 'loopback') {
    return {
      mode: 'loopback',
      notice: null,
      faultsDisabled:
        'network faults need network.mode "auto" or "namespaces" (this topology says "loopback")'
    }
  }
  if (support.ok) {
    const notice =
      support.delay.mechanism === null
        ? `latency faults disabled: missing ${support.delay.missing}; fix: ${support.delay.fix}`
        : null
    return { mode: 'namespaces', notice }
  }
  if (setting === 'namespaces') {
    return {
      mode: 'error',
      error: `network.mode is "namespaces" but ${support.missing} is missing; fix: ${support.fix}`
    }
  }
  const reason = `rooms share loopback: missing ${support.missing}; fix: ${support.fix}`
  return {
    mode: 'loopback',
    notice: reason,
    faultsDisabled: `network faults disabled: ${support.missing}`
  }
}
