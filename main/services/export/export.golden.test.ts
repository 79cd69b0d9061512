import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectGoldenDir } from './golden-dir'
import { topologySchema } from '../../../common/topology/schema'
import { renderExport } from './render'
import type { LatestResults } from './types'

// Run with UPDATE_GOLDEN=1 to rewrite test/golden/export after an intended output change.
const GOLDEN = 'test/golden/export'

/** Fixed results so the README's results section is pinned too. */
export const SAMPLE_RESULTS: LatestResults = {
  topologyName: 'three-rooms',
  scenarios: [
    {
      scenario: 'room1-brokers-down',
      verdict: 'pass',
      rtoMs: 4200,
      lost: 0,
      duplicates: 3,
      runId: 12,
      endedAt: Date.UTC(2025, 5, 1, 10, 0, 0)
    },
    {
      scenario: 'all-healthy',
      verdict: 'pass',
      rtoMs: null,
      lost: 0,
      duplicates: 0,
      runId: 11,
      endedAt: Date.UTC(2025, 5, 1, 9, 30, 0)
    },
    {
      scenario: 'room1-consumers-down',
      verdict: 'fail',
      rtoMs: 25300,
      lost: 2,
      runId: 13,
      endedAt: Date.UTC(2025, 5, 1, 10, 30, 0)
    }
  ]
}

const CASES = [
  { name: 'two-rooms', results: null },
  { name: 'three-rooms', results: SAMPLE_RESULTS },
  { name: 'three-rooms-controller', results: null }
] as const

describe('export golden files', () => {
  for (const c of CASES) {
    it(`${c.name} matches ${GOLDEN}/${c.name}`, () => {
      const topology = topologySchema.parse(
        JSON.parse(readFileSync(`resources/topologies/${c.name}.json`, 'utf8'))
      )
      const rendered = renderExport(topology, { results: c.results })
      expectGoldenDir(join(GOLDEN, c.name), rendered)
    })

    it(`${c.name} renders the same twice (deterministic)`, () => {
      const topology = topologySchema.parse(
        JSON.parse(readFileSync(`resources/topologies/${c.name}.json`, 'utf8'))
      )
      const a = renderExport(topology, { results: c.results })
      const b = renderExport(structuredClone(topology), { results: c.results })
      expect([...a]).toEqual([...b])
    })
  }
})
