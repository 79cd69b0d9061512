/** Messages per second per producer on an attached cluster when the user sets no rate. */
export const ATTACHED_DEFAULT_RATE = 5

/** Total messages per second of all producers on an attached cluster unless the user sets a rate. */
export const ATTACHED_TOTAL_CAP = 50

/** Groups DR Studio uses on someone else's cluster: never a production group, so no offsets move. */
export const DRSTUDIO_GROUP_PREFIX = 'drstudio-'
export const DRSTUDIO_PRODUCER_GROUP = `${DRSTUDIO_GROUP_PREFIX}producer`
export const DRSTUDIO_CONSUMER_GROUP = `${DRSTUDIO_GROUP_PREFIX}consumer`

export interface ProducerRate {
  id: string
  rate: number
}

export interface RateDecision {
  rates: ProducerRate[]
  /** True when the cap lowered a rate. */
  capped: boolean
  /** One sentence for the run log: what rate and why. */
  note: string
}

/**
 * Rates for a run. On DR Studio's own sandbox nothing changes. On an attached cluster an explicit
 * user rate (scenario `workload.rate`, CLI `--rate`) is used as given; otherwise every producer
 * sends ATTACHED_DEFAULT_RATE, and all of them together at most ATTACHED_TOTAL_CAP.
 */
export function decideRates(input: {
  producers: ProducerRate[]
  attached: boolean
  explicitRate?: number
}): RateDecision {
  const { producers, attached, explicitRate } = input
  if (explicitRate !== undefined) {
    return {
      rates: producers.map((p) => ({ id: p.id, rate: explicitRate })),
      capped: false,
      note: `${explicitRate} msg/s per producer, as set`
    }
  }
  if (!attached) {
    return {
      rates: producers.map((p) => ({ ...p })),
      capped: false,
      note: "the topology's producer rates"
    }
  }
  const n = producers.length
  const per =
    n === 0 ? ATTACHED_DEFAULT_RATE : Math.min(ATTACHED_DEFAULT_RATE, ATTACHED_TOTAL_CAP / n)
  const capped = per < ATTACHED_DEFAULT_RATE
  return {
    rates: producers.map((p) => ({ id: p.id, rate: per })),
    capped,
    note:
      `attached cluster: ${Math.round(per * 100) / 100} msg/s per producer` +
      (capped ? ` (${n} producers share a cap of ${ATTACHED_TOTAL_CAP} msg/s)` : '') +
      '; set workload.rate to choose another rate'
  }
}

/** The consumer group of one run, so a run never inherits another run's (or production's) offsets. */
export function runConsumerGroup(runId: number, lane?: string): string {
  return `${DRSTUDIO_GROUP_PREFIX}run-${runId}${lane ? `-${lane}` : ''}`
}

/** Whether Stop should unsubscribe this group: only groups DR Studio made. */
export function isDrStudioGroup(group: string): boolean {
  return group.startsWith(DRSTUDIO_GROUP_PREFIX)
}
