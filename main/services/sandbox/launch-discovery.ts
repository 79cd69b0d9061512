// Brokers learn every room's name servers from their room's management node when they launch
// (claim 6). Asking it for them just before the JVM starts, instead of leaving it to RocketMQ's
// address-server fetch, saves that fetch's hard-coded 10 s delay (BrokerController schedules it
// 10 s after boot) plus up to one 10 s registration tick: a broker given namesrvAddr registers
// with all of them as soon as it boots.
import type { NodeProcess } from './node-process'

/** Lists the name servers a management node knows (every room's, own room first). */
export interface ManagementNameServers {
  nameServersOf(managementAddress: string, timeoutMs: number): Promise<string[]>
}

/** `GET /v1/nameservers` of a management node: every configured name server, available or not. */
export const httpManagementNameServers: ManagementNameServers = {
  async nameServersOf(managementAddress, timeoutMs) {
    const url = `http://${managementAddress}/v1/nameservers`
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
    if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`)
    return nameServerAddresses(await res.json(), url)
  }
}

/** The `nameServers[].address` of a /v1/nameservers body; throws naming the URL when it has none. */
export function nameServerAddresses(body: unknown, url: string): string[] {
  const list = (body as { nameServers?: unknown } | null)?.nameServers
  const addresses = Array.isArray(list)
    ? list
        .map((n) => (n as { address?: unknown } | null)?.address)
        .filter((a): a is string => typeof a === 'string' && /^[^\s:;]+:\d+$/.test(a))
    : []
  if (addresses.length === 0) throw new Error(`${url} listed no name server`)
  return [...new Set(addresses)]
}

/** What learning the name servers at launch did for one room's brokers. */
export type LaunchLearning =
  | { room: string; management: string; namesrvAddr: string[] }
  | { room: string; management: string; error: string }

/**
 * Asks each room's management node (the one the room's brokers would fetch from) for the name
 * servers, in parallel. A room whose node does not answer keeps RocketMQ's own fetch.
 */
export async function learnNameServers(
  port: ManagementNameServers,
  brokers: readonly NodeProcess[],
  managementOf: (room: string) => NodeProcess | undefined,
  timeoutMs: number
): Promise<LaunchLearning[]> {
  const rooms = [...new Set(brokers.map((b) => b.room))]
  return Promise.all(
    rooms.flatMap((room) => {
      const mgmt = managementOf(room)
      if (!mgmt) return []
      const address = `${mgmt.host}:${mgmt.port}`
      return [
        port.nameServersOf(address, timeoutMs).then(
          (namesrvAddr): LaunchLearning => ({ room, management: mgmt.id, namesrvAddr }),
          (err: unknown): LaunchLearning => ({
            room,
            management: mgmt.id,
            error: err instanceof Error ? err.message : String(err)
          })
        )
      ]
    })
  )
}

/** The progress line for one broker after its room's learning. */
export function learningMessage(learning: LaunchLearning): string {
  if ('namesrvAddr' in learning) {
    return `name servers from ${learning.management}: ${learning.namesrvAddr.join(';')} (registers with them at boot)`
  }
  return (
    `${learning.management} did not list the name servers (${learning.error}); ` +
    `the broker fetches them from it itself, 10 s after boot`
  )
}
