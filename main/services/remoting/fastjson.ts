import { BadResponseError } from './errors'

const BARE_KEY_CHAR = /[A-Za-z0-9_$+\-.]/

/**
 * Quotes bare object keys such as fastjson's `{0:"ip:port"}` so JSON.parse accepts them.
 * String-aware: text inside string literals is never touched, whatever it looks like.
 */
export function quoteNumericKeys(text: string): string {
  const out: string[] = []
  // true = inside an object, false = inside an array
  const stack: boolean[] = []
  let expectKey = false
  let i = 0
  let copiedUpTo = 0
  const n = text.length
  while (i < n) {
    const c = text[i] as string
    if (c === '"') {
      // Skip the whole string literal, honouring escapes.
      i++
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
      i++
      expectKey = false
      continue
    }
    if (c === '{') {
      stack.push(true)
      expectKey = true
    } else if (c === '[') {
      stack.push(false)
      expectKey = false
    } else if (c === '}' || c === ']') {
      stack.pop()
      expectKey = false
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] === true
    } else if (c === ':') {
      expectKey = false
    } else if (expectKey && BARE_KEY_CHAR.test(c)) {
      let j = i
      while (j < n && BARE_KEY_CHAR.test(text[j] as string)) j++
      out.push(text.slice(copiedUpTo, i), '"', text.slice(i, j), '"')
      copiedUpTo = j
      i = j
      expectKey = false
      continue
    } else if (!/\s/.test(c)) {
      expectKey = false
    }
    i++
  }
  if (copiedUpTo === 0) return text
  out.push(text.slice(copiedUpTo))
  return out.join('')
}

/** Parses a fastjson body (Buffer or text) that may contain bare numeric keys; throws BadResponseError. */
export function parseFastjson(body: Buffer | string | undefined, address = 'unknown'): unknown {
  if (body === undefined || body.length === 0) {
    throw new BadResponseError(address, 'empty body where JSON was expected')
  }
  const text = typeof body === 'string' ? body : body.toString('utf8')
  try {
    return JSON.parse(quoteNumericKeys(text))
  } catch (e) {
    const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text
    throw new BadResponseError(address, `body is not (fast)JSON: ${JSON.stringify(shown)}`, e)
  }
}
