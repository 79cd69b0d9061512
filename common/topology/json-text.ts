// A strict JSON (RFC 8259) reader for files people edit by hand. JSON.parse accepts duplicate keys
// (keeping the last one, silently) and its errors name a character offset at best; this one refuses
// duplicates and says where, in which object, and what the usual cause is.

/** Where a syntax error is: 1-based line and column, and the JSON path of the value being read. */
export interface JsonSyntaxError {
  code: string
  message: string
  hint: string
  line: number
  column: number
  path: string
}

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError }

/** Far deeper than any topology (about 6 levels), shallow enough never to exhaust the stack. */
export const MAX_JSON_DEPTH = 64

/** 1-based line and column of a string index; CRLF and CR count as one line break. */
export function lineColumn(text: string, index: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < index && i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: index - lineStart + 1 }
}

class Fail extends Error {
  constructor(
    readonly code: string,
    readonly at: number,
    readonly detail: string,
    readonly hint: string,
    readonly path: string
  ) {
    super(detail)
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d])
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LOOSE_NUMBER = /[+-]?(?:0[xX][0-9a-fA-F]+|\d*\.?\d+(?:[eE][+-]?\d+)?|\d+\.|Infinity|NaN)/y
const WORD = /[A-Za-z_$][\w$-]*/y
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t'
}

function key(path: string, k: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`
}

/** Describes the character at `i` for a message: `"}"`, `end of file`, `U+00A0`. */
function shown(text: string, i: number): string {
  if (i >= text.length) return 'the end of the file'
  const c = text[i]!
  const code = c.charCodeAt(0)
  if (code < 0x20 || (code >= 0x7f && code <= 0xa0))
    return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  return `"${c}"`
}

class Reader {
  i = 0
  constructor(
    readonly text: string,
    readonly maxDepth: number
  ) {}

  fail(code: string, at: number, message: string, hint: string, path: string): never {
    throw new Fail(code, at, message, hint, path)
  }

  /** Skips whitespace; a comment is an error with its own fix. */
  space(path: string): void {
    const t = this.text
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i)
      if (WS.has(c)) this.i++
      else if (c === 0x2f && (t[this.i + 1] === '/' || t[this.i + 1] === '*')) {
        this.fail(
          'json-comment',
          this.i,
          'JSON does not allow comments',
          'delete the comment; keep notes in the "description" field',
          path
        )
      } else if (c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029) {
        this.fail(
          'json-bad-space',
          this.i,
          `${shown(t, this.i)} (an invisible space, usually pasted from a web page or chat) between values`,
          'delete it, or replace it with an ordinary space',
          path
        )
      } else return
    }
  }

  value(path: string, depth: number): unknown {
    this.space(path)
    const t = this.text
    const c = t[this.i]
    if (c === '{' || c === '[') {
      if (depth >= this.maxDepth) {
        this.fail(
          'json-too-deep',
          this.i,
          `values are nested more than ${this.maxDepth} levels deep`,
          'a topology is about 6 levels deep; this is not a topology file, or it was generated wrongly',
          path
        )
      }
      return c === '{' ? this.object(path, depth + 1) : this.array(path, depth + 1)
    }
    if (c === '"') return this.string(path)
    if (c === "'") {
      this.fail(
        'json-single-quote',
        this.i,
        'strings must be in double quotes, not single quotes',
        `replace ' with "`,
        path
      )
    }
    NUMBER.lastIndex = this.i
    LOOSE_NUMBER.lastIndex = this.i
    const loose = LOOSE_NUMBER.exec(t)
    const strict = NUMBER.exec(t)
    if (loose && (!strict || loose[0].length > strict[0].length)) {
      this.fail(
        'json-bad-number',
        this.i,
        `${loose[0]} is not a JSON number`,
        'write plain decimal numbers: no leading + or 0, no hex, no NaN or Infinity, digits on both sides of the point',
        path
      )
    }
    if (strict) {
      this.i += strict[0].length
      return Number(strict[0])
    }
    WORD.lastIndex = this.i
    const word = WORD.exec(t)?.[0]
    if (word === 'true' || word === 'false' || word === 'null') {
      this.i += word.length
      return word === 'true' ? true : word === 'false' ? false : null
    }
    if (word !== undefined) {
      const lower = word.toLowerCase()
      const meant =
        lower === 'true' || lower === 'yes'
          ? 'true'
          : lower === 'false' || lower === 'no'
            ? 'false'
            : lower === 'null' || lower === 'none' || lower === 'nil' || lower === 'undefined'
              ? 'null'
              : null
      this.fail(
        'json-bad-literal',
        this.i,
        `${word} is not a JSON value`,
        meant ? `write ${meant}` : `put text in double quotes: "${word}"`,
        path
      )
    }
    if (this.i >= t.length) {
      this.fail(
        'json-unexpected-end',
        this.i,
        'the file ends where a value was expected',
        'the file is cut short: finish the value and close every { and [',
        path
      )
    }
    this.fail(
      'json-unexpected',
      this.i,
      `unexpected ${shown(t, this.i)} where a value was expected`,
      'write a value here: "text", a number, true, false, null, {…} or […]',
      path
    )
  }

  /** After an item: a separator, the closer, or a clear error (missing or trailing comma). */
  private next(close: '}' | ']', path: string): boolean {
    this.space(path)
    const t = this.text
    const c = t[this.i]
    if (c === close) {
      this.i++
      return false
    }
    if (c === ',') {
      const comma = this.i
      this.i++
      this.space(path)
      if (t[this.i] === close) {
        this.fail(
          'json-trailing-comma',
          comma,
          `trailing comma before "${close}"`,
          `delete the comma after the last ${close === '}' ? 'property' : 'item'}`,
          path
        )
      }
      return true
    }
    if (this.i >= t.length) {
      this.fail(
        'json-unexpected-end',
        this.i,
        `the file ends before this ${close === '}' ? 'object' : 'array'} is closed`,
        `the file is cut short, or a "${close}" is missing`,
        path
      )
    }
    if (c === '"' || c === '{' || c === '[' || /[-\d tfn]/.test(c ?? '')) {
      this.fail(
        'json-missing-comma',
        this.i,
        `missing comma before ${shown(t, this.i)}`,
        `put a comma between the ${close === '}' ? 'properties' : 'items'}`,
        path
      )
    }
    this.fail(
      'json-unexpected',
      this.i,
      `unexpected ${shown(t, this.i)}; expected "," or "${close}"`,
      `separate items with commas and close with "${close}"`,
      path
    )
  }

  object(path: string, depth: number): Record<string, unknown> {
    const t = this.text
    this.i++ // {
    const out: Record<string, unknown> = {}
    const seen = new Map<string, number>()
    this.space(path)
    if (t[this.i] === '}') {
      this.i++
      return out
    }
    for (;;) {
      this.space(path)
      const at = this.i
      if (t[at] !== '"') {
        WORD.lastIndex = at
        const word = WORD.exec(t)?.[0]
        if (t[at] === "'") {
          this.fail(
            'json-single-quote',
            at,
            'keys must be in double quotes, not single quotes',
            `replace ' with "`,
            path
          )
        }
        if (word) {
          this.fail(
            'json-unquoted-key',
            at,
            `key ${word} is not in double quotes`,
            `write "${word}"`,
            path
          )
        }
        if (at >= t.length) {
          this.fail(
            'json-unexpected-end',
            at,
            'the file ends before this object is closed',
            'the file is cut short, or a "}" is missing',
            path
          )
        }
        this.fail(
          'json-unexpected',
          at,
          `unexpected ${shown(t, at)} where a key in double quotes was expected`,
          'write "key": value',
          path
        )
      }
      const k = this.string(path)
      const childPath = key(path, k)
      const first = seen.get(k)
      if (first !== undefined) {
        const { line, column } = lineColumn(t, first)
        this.fail(
          'json-duplicate-key',
          at,
          `key "${k}" appears twice in ${path} (first at line ${line}, column ${column}); JSON readers keep only the last one`,
          'delete one of the two, keeping the value you mean',
          childPath
        )
      }
      seen.set(k, at)
      this.space(childPath)
      if (t[this.i] !== ':') {
        this.fail(
          'json-missing-colon',
          this.i,
          `expected ":" after key "${k}", found ${shown(t, this.i)}`,
          `write "${k}": value`,
          childPath
        )
      }
      this.i++
      const v = this.value(childPath, depth)
      // defineProperty: a "__proto__" key is data, as with JSON.parse, never the prototype.
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true
      })
      if (!this.next('}', path)) return out
    }
  }

  array(path: string, depth: number): unknown[] {
    const t = this.text
    this.i++ // [
    const out: unknown[] = []
    this.space(path)
    if (t[this.i] === ']') {
      this.i++
      return out
    }
    for (;;) {
      out.push(this.value(`${path}[${out.length}]`, depth))
      if (!this.next(']', path)) return out
    }
  }

  string(path: string): string {
    const t = this.text
    const start = this.i
    this.i++ // "
    let out = ''
    let run = this.i
    for (;;) {
      if (this.i >= t.length) {
        this.fail(
          'json-unterminated-string',
          start,
          'this string is never closed',
          'add the closing " (a string cannot span lines)',
          path
        )
      }
      const c = t.charCodeAt(this.i)
      if (c === 0x22) {
        out += t.slice(run, this.i)
        this.i++
        return out
      }
      if (c < 0x20) {
        const what = c === 10 || c === 13 ? 'a line break' : c === 9 ? 'a tab' : shown(t, this.i)
        this.fail(
          'json-control-character',
          this.i,
          `a string contains ${what}; JSON strings must be on one line`,
          c === 9 ? 'write \\t instead of the tab' : 'close the string on its line, or write \\n',
          path
        )
      }
      if (c === 0x5c) {
        out += t.slice(run, this.i)
        const e = t[this.i + 1]
        if (e !== undefined && ESCAPES[e] !== undefined) {
          out += ESCAPES[e]
          this.i += 2
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(t.slice(this.i + 2, this.i + 6))) {
          out += String.fromCharCode(parseInt(t.slice(this.i + 2, this.i + 6), 16))
          this.i += 6
        } else {
          this.fail(
            'json-bad-escape',
            this.i,
            `\\${e ?? ''} is not a JSON escape`,
            'a backslash starts an escape: write \\\\ for a backslash (Windows paths: C:\\\\data), or use /',
            path
          )
        }
        run = this.i
        continue
      }
      this.i++
    }
  }
}

/** Parses JSON text strictly; on error says what, where (line, column, JSON path) and the fix. */
export function parseJsonStrict(text: string, maxDepth = MAX_JSON_DEPTH): JsonParseResult {
  const reader = new Reader(text, maxDepth)
  try {
    const value = reader.value('$', 0)
    reader.space('$')
    if (reader.i < text.length) {
      const { line, column } = lineColumn(text, reader.i)
      return {
        ok: false,
        error: {
          code: 'json-trailing-data',
          message: `more text after the end of the JSON value: ${shown(text, reader.i)}`,
          hint: 'a topology file holds one JSON object; delete what follows its closing }',
          line,
          column,
          path: '$'
        }
      }
    }
    return { ok: true, value }
  } catch (err) {
    if (!(err instanceof Fail)) throw err
    const { line, column } = lineColumn(text, err.at)
    return {
      ok: false,
      error: { code: err.code, message: err.detail, hint: err.hint, line, column, path: err.path }
    }
  }
}
