import { describe, expect, it } from 'vitest'
import { FrameBatcher } from './frame-batcher'

describe('FrameBatcher', () => {
  it('delivers everything pushed before a frame in one flush, then starts over', () => {
    const frames: (() => void)[] = []
    const flushed: number[][] = []
    const b = new FrameBatcher<number>(
      (items) => flushed.push(items),
      (fn) => void frames.push(fn)
    )
    b.push(1)
    b.push(2)
    b.push(3)
    expect(frames).toHaveLength(1)
    frames.shift()!()
    b.push(4)
    frames.shift()!()
    expect(flushed).toEqual([[1, 2, 3], [4]])
  })
})
