import { describe, expect, it } from 'vitest'
import { asRefusal } from './official-sdk'
import { RefusedMessageError } from './sdk-port'

class BadRequest extends Error {}
class Unavailable extends Error {}

describe('asRefusal', () => {
  it("turns the proxy's bad-request answers and the library's own checks into refusals", () => {
    const proxy = asRefusal(new BadRequest('[response-code=40402] type conflict'), [BadRequest])
    expect(proxy).toBeInstanceOf(RefusedMessageError)
    expect((proxy as RefusedMessageError).reason).toMatch(/type conflict/)
    const library = asRefusal(new TypeError('Current message type not match with topic'), [])
    expect(library).toBeInstanceOf(RefusedMessageError)
  })

  it('passes every other failure through, so the lane can fail over on it', () => {
    const down = new Unavailable('14 UNAVAILABLE: connect ECONNREFUSED')
    expect(asRefusal(down, [BadRequest])).toBe(down)
    expect(asRefusal('x', [BadRequest])).toBe('x')
  })
})
