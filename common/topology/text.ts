// What a topology file's bytes and text can be before they are JSON: byte-order marks, UTF-16
// from Windows tools, Latin-1 bytes, NULs, an empty file, a YAML file. No Node built-ins here:
// the CLI, the Electron shell and the browser shell all pass through these checks.
import { lineColumn } from './json-text'
import type { Problem } from './problem'

/** Far above any real topology (1000 nodes with a layout are about 300 KB); refuses wrong files early. */
export const MAX_TOPOLOGY_BYTES = 8 * 1024 * 1024

export type DecodedText =
  | { ok: true; text: string; encoding: 'utf-8' | 'utf-16le' | 'utf-16be' }
  | { ok: false; problem: Problem }

function problem(
  code: string,
  message: string,
  hint: string,
  at?: { line: number; column: number }
): Problem {
  return { code, path: '$', message, hint, ...(at ?? {}) }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

/** The size limit as a problem, or null; checked before reading when the size is known. */
export function sizeProblem(bytes: number): Problem | null {
  if (bytes <= MAX_TOPOLOGY_BYTES) return null
  return problem(
    'file-too-large',
    `the file is ${mib(bytes)}; a topology is at most ${mib(MAX_TOPOLOGY_BYTES)} (real ones are well under 1 MiB)`,
    'check that this is the topology file and not a log, a dump or a data file'
  )
}

/** Index of the first byte that does not start a valid UTF-8 sequence (TextDecoder does not say). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i]!
    let n = 0
    let min = 0
    if (b < 0x80) {
      i++
      continue
    } else if (b >= 0xc2 && b <= 0xdf) {
      n = 1
      min = 0x80
    } else if (b >= 0xe0 && b <= 0xef) {
      n = 2
      min = 0x800
    } else if (b >= 0xf0 && b <= 0xf4) {
      n = 3
      min = 0x10000
    } else return i
    let cp = b & (0x3f >> n)
    for (let k = 1; k <= n; k++) {
      const c = bytes[i + k]
      if (c === undefined || (c & 0xc0) !== 0x80) return i
      cp = (cp << 6) | (c & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i
    i += n + 1
  }
  return -1
}

/** Line and column of a byte offset in (valid) UTF-8 bytes before it. */
function byteLineColumn(bytes: Uint8Array, offset: number): { line: number; column: number } {
  const before = new TextDecoder('utf-8').decode(bytes.subarray(0, offset))
  return lineColumn(before, before.length)
}

/**
 * Decodes a topology file's bytes. UTF-8 (with or without a BOM) is the format; UTF-16 with a BOM
 * (what Windows PowerShell 5 writes by default) or without one (JSON starts with an ASCII
 * character, so the NUL pattern of its first two bytes tells LE from BE) is read as well, on
 * purpose, and saved back as UTF-8. Anything else gets a problem with the fix.
 */
export function decodeTopologyBytes(bytes: Uint8Array): DecodedText {
  const size = sizeProblem(bytes.length)
  if (size) return { ok: false, problem: size }
  const [b0, b1, b2, b3] = bytes
  if ((b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0) || (b0 === 0 && b1 === 0)) {
    return {
      ok: false,
      problem: problem(
        'unsupported-encoding',
        'the file is UTF-32 encoded',
        're-save it as UTF-8 (in most editors: File ▸ Save with Encoding ▸ UTF-8)'
      )
    }
  }
  let encoding: 'utf-16le' | 'utf-16be' | null = null
  let start = 0
  if (b0 === 0xff && b1 === 0xfe) [encoding, start] = ['utf-16le', 2]
  else if (b0 === 0xfe && b1 === 0xff) [encoding, start] = ['utf-16be', 2]
  else if (bytes.length >= 2 && b0 !== 0 && b1 === 0) encoding = 'utf-16le'
  else if (bytes.length >= 2 && b0 === 0 && b1 !== 0) encoding = 'utf-16be'
  if (encoding) {
    try {
      const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(
        bytes.subarray(start)
      )
      return { ok: true, text, encoding }
    } catch {
      return {
        ok: false,
        problem: problem(
          'invalid-utf16',
          `the file looks ${encoding.toUpperCase()} encoded but is not valid ${encoding.toUpperCase()} (an odd length or a broken surrogate pair)`,
          're-save it as UTF-8; if a script wrote it, check that it was not cut short'
        )
      }
    }
  }
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) start = 3
  const body = bytes.subarray(start)
  const bad = firstInvalidUtf8(body)
  if (bad >= 0) {
    const at = byteLineColumn(body, bad)
    const byte = body[bad]!.toString(16).toUpperCase().padStart(2, '0')
    return {
      ok: false,
      problem: problem(
        'invalid-utf8',
        `byte 0x${byte} at line ${at.line}, column ${at.column} is not UTF-8 (the file is probably Latin-1 or Windows-1252)`,
        're-save the file as UTF-8 (in most editors: File ▸ Save with Encoding ▸ UTF-8; or iconv -f WINDOWS-1252 -t UTF-8)',
        at
      )
    }
  }
  return { ok: true, text: new TextDecoder('utf-8').decode(body), encoding: 'utf-8' }
}

/**
 * Checks on text before it is parsed as JSON: text already decoded elsewhere (a browser's file
 * picker decodes as UTF-8, replacing bad bytes with U+FFFD) can still show a decoding accident.
 * Returns the text to parse (a leading BOM removed), or the problem.
 */
export function precheckTopologyText(
  raw: string
): { ok: true; text: string } | { ok: false; problem: Problem } {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  if (text.length > MAX_TOPOLOGY_BYTES) return { ok: false, problem: sizeProblem(text.length)! }
  if (text.trim() === '') {
    return {
      ok: false,
      problem: problem(
        text === '' ? 'empty-file' : 'blank-file',
        text === '' ? 'the file is empty' : 'the file holds only whitespace',
        'a topology is a JSON object; start from resources/topologies/two-rooms.json, or save one from DR Studio'
      )
    }
  }
  const nul = text.indexOf('\u0000')
  if (nul >= 0) {
    // Every other character NUL: UTF-16 text that was read as UTF-8.
    const nuls = text.slice(0, 200).split('\u0000').length - 1
    const utf16 = nuls >= Math.min(text.length, 200) / 3
    return {
      ok: false,
      problem: problem(
        utf16 ? 'utf16-read-as-utf8' : 'nul-character',
        utf16
          ? 'the file is UTF-16 encoded and was read as UTF-8'
          : `the file contains a NUL character at line ${lineColumn(text, nul).line}, column ${lineColumn(text, nul).column}`,
        utf16
          ? 're-save it as UTF-8 (Windows PowerShell: Out-File -Encoding utf8), or open it with `drstudio validate` or the desktop app, which read UTF-16'
          : 'the file is binary or corrupted; re-save the topology from DR Studio or your editor',
        utf16 ? undefined : lineColumn(text, nul)
      )
    }
  }
  const replacement = text.indexOf('\ufffd')
  if (replacement >= 0) {
    const at = lineColumn(text, replacement)
    return {
      ok: false,
      problem: problem(
        'invalid-utf8',
        `the file has bytes that are not UTF-8 (shown as U+FFFD at line ${at.line}, column ${at.column}; the file is probably Latin-1 or Windows-1252)`,
        're-save the file as UTF-8 (in most editors: File ▸ Save with Encoding ▸ UTF-8)',
        at
      )
    }
  }
  const first = text.trimStart()[0]
  if (first !== '{' && first !== '[' && first !== '"') {
    const yaml = yamlProblem(text)
    if (yaml) return { ok: false, problem: yaml }
  }
  return { ok: true, text }
}

/** A YAML file given where a topology (JSON) was expected, with what it probably is. */
function yamlProblem(text: string): Problem | null {
  const looksYaml = /^(---|%YAML|#|[A-Za-z_][\w-]*\s*:(\s|$))/m.test(text.trimStart())
  if (!looksYaml) return null
  const scenario = /^kind:\s*["']?drstudio\/scenario/m.test(text)
  const topology = /^topology:\s*["']?([^\s"'#]+)/m.exec(text)?.[1]
  if (scenario) {
    return problem(
      'scenario-not-topology',
      `this is a DR Studio scenario (YAML), not a topology${topology ? `; it runs topology "${topology}"` : ''}`,
      `run it with \`drstudio scenario run <file>\`, or open the topology it names${topology ? ` (resources/topologies/${topology}.json)` : ''}`
    )
  }
  return problem(
    'yaml-not-json',
    'the file looks like YAML; a topology file is JSON',
    'convert it to JSON (for example with yq -o=json), or save the topology from DR Studio'
  )
}
