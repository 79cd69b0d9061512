import { describe, expect, it } from 'vitest'
import { listNodes, validateTopology } from '../../../common/topology'
import { summarize } from './frame-stats'
import { generateTopology } from './generate'

describe('bench topology', () => {
  it('generates a valid topology of the requested size', () => {
    const doc = generateTopology(300, 6)
    expect(listNodes(doc)).toHaveLength(300)
    expect(doc.rooms).toHaveLength(6)
    expect(validateTopology(doc).ok).toBe(true)
    expect(listNodes(generateTopology(40, 2))).toHaveLength(40)
  })
})

describe('frame stats', () => {
  it('summarises frame durations', () => {
    const s = summarize([16, 16, 17, 50])
    expect(s).toMatchObject({ frames: 4, p50: 17, max: 50, longFrames: 1 })
    expect(s.fps).toBeCloseTo(40.4, 0)
    expect(summarize([])).toMatchObject({ frames: 0, fps: 0, p50: 0 })
  })
})
