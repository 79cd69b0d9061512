/**
 * When a consumer may act on one broker's list of its group alone (a takeover in one round trip)
 * and which members that list leaves: the members every broker listed at the last full round,
 * less those the notifying broker listed then and no longer does, plus any it lists anew. A client
 * the broker never listed is not taken for gone (it may not have reached that broker yet).
 *
 * Null (ask every broker instead) when the broker does not list this consumer, did not answer the
 * last full round, or its channel to this consumer closed within `settleMs`: a restarted broker
 * lists its consumers one heartbeat at a time, and an early list would orphan the rest.
 */
export function membersOnViewOf(input: {
  self: string
  /** What the notifying broker lists now. */
  listed: readonly string[]
  /** What it listed at the last full round (undefined: it did not answer then). */
  previous: ReadonlySet<string> | undefined
  /** Every broker's list at the last full round, together. */
  everyone: ReadonlySet<string>
  /** When this consumer's connection to it last closed (epoch ms), if ever. */
  closedAt: number | undefined
  now: number
  settleMs: number
}): string[] | null {
  const { listed, previous } = input
  if (!listed.includes(input.self) || previous === undefined) return null
  if (input.closedAt !== undefined && input.now - input.closedAt < input.settleMs) return null
  const now = new Set(listed)
  const gone = new Set([...previous].filter((c) => !now.has(c)))
  return [...new Set([...[...input.everyone].filter((c) => !gone.has(c)), ...listed])]
}

/** The last full round's lists by broker address, and when each broker's channel last closed. */
export class GroupViews {
  private readonly lists = new Map<string, ReadonlySet<string>>()
  private readonly closed = new Map<string, number>()

  /** A full round: brokers that answered replace their lists; the others' are no longer known. */
  recordRound(answers: ReadonlyMap<string, readonly string[]>): void {
    this.lists.clear()
    for (const [address, cids] of answers) this.lists.set(address, new Set(cids))
  }

  /** Its list is no longer known: a broker that restarts lists its consumers one by one. */
  connectionClosed(address: string, at: number): void {
    this.closed.set(address, at)
    this.lists.delete(address)
  }

  membersOnViewOf(
    address: string,
    listed: readonly string[],
    self: string,
    now: number,
    settleMs: number
  ): string[] | null {
    return membersOnViewOf({
      self,
      listed,
      previous: this.lists.get(address),
      everyone: new Set([...this.lists.values()].flatMap((s) => [...s])),
      closedAt: this.closed.get(address),
      now,
      settleMs
    })
  }
}
