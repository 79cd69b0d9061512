import type { RegistrationProbe } from './admin-ports'
import type { NodeProcess } from './node-process'
import type { Clock } from './readiness'
import { ANSWERING_STATES } from '../../../common/contract/node-actions'

/** How long each name server took, after the last broker booted, to list every running broker. */
export interface RegistrationReport {
  /** Milliseconds from "all brokers up" to "every name server lists every broker"; null on timeout. */
  allMs: number | null
  byNameServer: Record<string, number | null>
  /** Brokers a name server still did not list when the wait ended. */
  missing: Record<string, string[]>
}

/**
 * Polls every running name server until it lists every running broker (or the budget ends).
 * `stillCurrent` stops the poll when the sandbox it belongs to was stopped meanwhile.
 */
export async function pollRegistration(input: {
  probe: RegistrationProbe
  nodes: readonly NodeProcess[]
  clock: Clock
  since: number
  timeoutMs: number
  intervalMs: number
  stillCurrent: () => boolean
  progress: (nodeId: string, message: string) => void
}): Promise<RegistrationReport> {
  const { clock, probe } = input
  const nameServers = input.nodes.filter((rt) => rt.kind === 'nameserver' && rt.state === 'up')
  const expected = input.nodes
    // A controller-mode replica registers while its group is still electing or syncing.
    .filter((rt) => rt.kind === 'broker' && ANSWERING_STATES.includes(rt.state))
    .map((rt) => `${rt.host}:${rt.port}`)
  const deadline = clock.now() + input.timeoutMs
  const nudgedAt = new Map<string, number>()
  const byNameServer: Record<string, number | null> = {}
  const missing: Record<string, string[]> = {}
  for (const ns of nameServers) {
    byNameServer[ns.id] = null
    missing[ns.id] = [...expected]
  }
  while (clock.now() < deadline && input.stillCurrent()) {
    await nudgeMissing(input, expected, missing, nudgedAt)
    await Promise.all(
      nameServers
        .filter((ns) => byNameServer[ns.id] === null)
        .map(async (ns) => {
          const listed = await probe.brokersOn(`${ns.host}:${ns.port}`).catch(() => [] as string[])
          missing[ns.id] = expected.filter((a) => !listed.includes(a))
          if (missing[ns.id]!.length === 0 && byNameServer[ns.id] === null) {
            byNameServer[ns.id] = clock.now() - input.since
            input.progress(
              ns.id,
              `lists all ${expected.length} brokers (${byNameServer[ns.id]} ms after boot)`
            )
          }
        })
    )
    if (Object.values(byNameServer).every((v) => v !== null)) break
    await clock.sleep(input.intervalMs)
  }
  return summarise(byNameServer, missing)
}

/** Once a second, asks each broker some name server still lacks to register now (see nudge). */
async function nudgeMissing(
  input: { probe: RegistrationProbe; clock: Clock },
  expected: string[],
  missing: Record<string, string[]>,
  nudgedAt: Map<string, number>
): Promise<void> {
  const nudge = input.probe.nudge
  if (!nudge) return
  const now = input.clock.now()
  const lacking = expected.filter((a) => Object.values(missing).some((m) => m.includes(a)))
  await Promise.all(
    lacking
      .filter((a) => now - (nudgedAt.get(a) ?? -Infinity) >= 1000)
      .map(async (a) => {
        nudgedAt.set(a, now)
        await nudge(a).catch(() => undefined)
      })
  )
}

function summarise(
  byNameServer: Record<string, number | null>,
  missing: Record<string, string[]>
): RegistrationReport {
  const times = Object.values(byNameServer)
  const allMs = times.every((v) => v !== null) ? Math.max(0, ...(times as number[])) : null
  return { allMs, byNameServer, missing }
}
