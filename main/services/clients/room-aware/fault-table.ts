/** One broker the client stopped using, and why. */
export interface FaultEntry {
  brokerName: string
  address: string | undefined
  room: string | null
  reason: string
  since: number
  lastProbeAt: number | null
}

/**
 * Brokers marked faulty. Unlike rocketmq-client-nodejs (whose isolation never ends), an entry is
 * removed as soon as a background probe of the broker succeeds.
 */
export class FaultTable {
  private readonly entries = new Map<string, FaultEntry>()

  /** Isolates a broker; returns false if it already was (the first reason and time are kept). */
  isolate(entry: Omit<FaultEntry, 'lastProbeAt'>): boolean {
    const prev = this.entries.get(entry.brokerName)
    if (prev) {
      if (entry.address) prev.address = entry.address
      return false
    }
    this.entries.set(entry.brokerName, { ...entry, lastProbeAt: null })
    return true
  }

  /** Lifts an isolation; returns the removed entry. */
  recover(brokerName: string): FaultEntry | undefined {
    const e = this.entries.get(brokerName)
    this.entries.delete(brokerName)
    return e
  }

  has(brokerName: string): boolean {
    return this.entries.has(brokerName)
  }

  /** brokerName → isolated since, the shape chooseBroker takes. */
  sinceMap(): Map<string, number> {
    return new Map([...this.entries.values()].map((e) => [e.brokerName, e.since]))
  }

  /** Entries whose last probe is older than `intervalMs`, to probe now. */
  dueForProbe(now: number, intervalMs: number): FaultEntry[] {
    return [...this.entries.values()].filter(
      (e) => e.lastProbeAt === null || now - e.lastProbeAt >= intervalMs
    )
  }

  list(): FaultEntry[] {
    return [...this.entries.values()]
  }

  clear(): void {
    this.entries.clear()
  }
}
