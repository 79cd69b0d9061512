import type { ClusterInfo, TopicRoute } from '../services/remoting'
import { RemotingRpc, RemotingError } from '../services/remoting'

type Out = { write(s: string): unknown }

function requireAddress(value: string, flag: string): string {
  if (!/^[^:\s]+:\d{1,5}$/.test(value)) {
    throw new Error(`${flag} must be host:port (got "${value}"), e.g. 127.0.0.1:9876`)
  }
  return value
}

async function withClient<T>(
  namesrv: string,
  body: (client: RemotingRpc) => Promise<T>
): Promise<T> {
  const client = new RemotingRpc()
  try {
    return await body(client)
  } catch (err) {
    if (err instanceof RemotingError) {
      throw new Error(
        `name server ${namesrv}: ${err.message} (check the address and that it is running)`
      )
    }
    throw err
  } finally {
    client.close()
  }
}

/** Rows of brokers (cluster, name, id, address, room) as the name server reports them. */
export function clusterRows(info: ClusterInfo) {
  const rows: {
    cluster: string
    brokerName: string
    brokerId: string
    address: string
    zone: string
  }[] = []
  for (const [cluster, names] of Object.entries(info.clusterAddrTable)) {
    for (const name of [...names].sort()) {
      const data = info.brokerAddrTable[name]
      for (const [id, address] of Object.entries(data?.brokerAddrs ?? {}).sort()) {
        rows.push({ cluster, brokerName: name, brokerId: id, address, zone: data?.zoneName ?? '-' })
      }
    }
  }
  return rows
}

function table(rows: Record<string, string>[], out: Out): void {
  if (rows.length === 0) return
  const cols = Object.keys(rows[0]!)
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)))
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(width[i]!))
      .join('  ')
      .trimEnd() + '\n'
  out.write(line(cols))
  for (const r of rows) out.write(line(cols.map((c) => String(r[c]))))
}

/** `drstudio cluster-info --namesrv host:port`: brokers the name server knows now, with their rooms. */
export async function runClusterInfoCommand(
  opts: { namesrv: string; json?: boolean },
  out: Out = process.stdout
): Promise<number> {
  const ns = requireAddress(opts.namesrv, '--namesrv')
  const info = await withClient(ns, (c) => c.getBrokerClusterInfo(ns))
  const rows = clusterRows(info)
  if (opts.json)
    out.write(JSON.stringify({ namesrv: ns, brokers: rows, raw: info }, null, 2) + '\n')
  else if (rows.length === 0) out.write(`${ns}: no brokers registered\n`)
  else table(rows, out)
  return 0
}

/** `drstudio route --namesrv host:port --topic t`: the topic route the name server returns now. */
export async function runRouteCommand(
  opts: { namesrv: string; topic: string; json?: boolean },
  out: Out = process.stdout
): Promise<number> {
  const ns = requireAddress(opts.namesrv, '--namesrv')
  let route: TopicRoute
  try {
    route = await withClient(ns, (c) => c.getRouteInfoByTopic(ns, opts.topic))
  } catch (err) {
    if (/TOPIC_NOT_EXIST|No topic route info|code 17/i.test((err as Error).message)) {
      out.write(
        `${ns}: topic "${opts.topic}" has no route (not created, or no broker serving it is registered)\n`
      )
      return 1
    }
    throw err
  }
  const rows = route.brokerDatas.flatMap((b) => {
    const q = route.queueDatas.find((x) => x.brokerName === b.brokerName)
    return Object.entries(b.brokerAddrs).map(([id, address]) => ({
      brokerName: b.brokerName,
      brokerId: id,
      address,
      zone: b.zoneName ?? '-',
      readQueues: String(q?.readQueueNums ?? 0),
      writeQueues: String(q?.writeQueueNums ?? 0),
      perm: String(q?.perm ?? 0)
    }))
  })
  if (opts.json)
    out.write(
      JSON.stringify({ namesrv: ns, topic: opts.topic, brokers: rows, raw: route }, null, 2) + '\n'
    )
  else table(rows, out)
  return 0
}
