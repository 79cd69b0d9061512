import { RemotingRpc } from '../remoting'

/** Asks one name server which broker addresses it currently lists (for registration timing). */
export interface RegistrationProbe {
  brokersOn(namesrvAddress: string): Promise<string[]>
  /**
   * Asks a broker to register with every name server it knows now. A broker left to fetch them from
   * its management node itself does so 10 s after boot but registers only on its own 10 s tick.
   */
  nudge?(brokerAddress: string): Promise<void>
  close?(): void
}

/** The slice of RemotingRpc the sandbox uses, so tests can pass a stub. */
export interface RemotingAdminApi {
  updateAndCreateTopic(
    brokerAddress: string,
    input: {
      topic: string
      readQueueNums?: number
      writeQueueNums?: number
      brokerName?: string
      /** e.g. `+message.type=MIXED`. */
      attributes?: string
    },
    options?: { timeoutMs?: number }
  ): Promise<void>
  getBrokerClusterInfo(
    namesrvAddress: string,
    options?: { timeoutMs?: number }
  ): Promise<{ brokerAddrTable: Record<string, { brokerAddrs: Record<string, string> }> }>
  updateBrokerConfig?(
    brokerAddress: string,
    properties: Record<string, string | number | boolean>,
    options?: { timeoutMs?: number }
  ): Promise<void>
  close(): void
}

/** GET_BROKER_CLUSTER_INFO (106) on a name server, flattened to the broker addresses it lists. */
export function remotingRegistrationProbe(client: RemotingAdminApi): RegistrationProbe {
  return {
    async brokersOn(namesrvAddress) {
      const info = await client.getBrokerClusterInfo(namesrvAddress, { timeoutMs: 3000 })
      return Object.values(info.brokerAddrTable).flatMap((b) => Object.values(b.brokerAddrs))
    },
    // `mqadmin updateBrokerConfig -k brokerPermission -v 6`: the value it has (read + write);
    // setting it makes the broker register with every name server it knows at once.
    ...(client.updateBrokerConfig
      ? {
          nudge: (brokerAddress: string) =>
            client.updateBrokerConfig!(brokerAddress, { brokerPermission: 6 }, { timeoutMs: 2000 })
        }
      : {}),
    close: () => client.close()
  }
}

/** A fresh RemotingRpc for the sandbox's own admin calls. */
export function createRemotingAdmin(): RemotingAdminApi {
  return new RemotingRpc()
}
