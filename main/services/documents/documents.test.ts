import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  ftruncateSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  loadTopology,
  loadTopologyForCli,
  readTopologyFile,
  TopologyFileError,
  writeTopologyFile
} from './documents'

// The one topology loader (CLI, Electron, browser shell's server side): bytes as editors and
// scripts write them. Text-level cases (syntax, values, hosts) are in common/topology/inputs.test.ts.

const dir = mkdtempSync(join(tmpdir(), 'drstudio-documents-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TEXT = readFileSync('resources/topologies/two-rooms.json', 'utf8')
let n = 0

function file(bytes: Uint8Array | string): string {
  const path = join(dir, `t${n++}.json`)
  writeFileSync(path, bytes)
  return path
}

function utf16(text: string, endian: 'le' | 'be', bom: boolean): Buffer {
  const le = Buffer.from(text, 'utf16le')
  const body = endian === 'le' ? le : Buffer.from(le).swap16()
  const mark = endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]
  return Buffer.concat([Buffer.from(bom ? mark : []), body])
}

describe('readTopologyFile: encodings', () => {
  const accepted: [string, Uint8Array | string][] = [
    ['UTF-8', TEXT],
    [
      'UTF-8 with a byte-order mark (Notepad, PowerShell 7 -Encoding utf8BOM)',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)])
    ],
    ['CRLF line endings', TEXT.replace(/\n/g, '\r\n')],
    ['UTF-16 LE with a BOM (Windows PowerShell 5 > and Out-File)', utf16(TEXT, 'le', true)],
    ['UTF-16 BE with a BOM', utf16(TEXT, 'be', true)],
    ['UTF-16 LE without a BOM', utf16(TEXT, 'le', false)],
    ['UTF-16 BE without a BOM', utf16(TEXT, 'be', false)],
    [
      'UTF-16 LE with non-ASCII text',
      utf16(TEXT.replace('Two machine rooms', 'Zwei Räume'), 'le', true)
    ]
  ]
  for (const [name, bytes] of accepted) {
    it(`reads ${name}`, () => {
      const opened = readTopologyFile(file(bytes))
      expect(opened.problems).toEqual([])
      expect(opened.name).toBe('two-rooms')
    })
  }

  it('keeps non-ASCII text intact through UTF-16', () => {
    const opened = readTopologyFile(
      file(utf16(TEXT.replace('Two machine rooms', 'Zwei Räume'), 'le', true))
    )
    expect((opened.document as { description: string }).description).toMatch(/^Zwei Räume/)
  })

  it('saves a UTF-16 file back as plain UTF-8', () => {
    const path = file(utf16(TEXT, 'le', true))
    writeTopologyFile(path, readTopologyFile(path).document)
    const bytes = readFileSync(path)
    expect([...bytes.subarray(0, 2)]).toEqual([0x7b, 0x0a]) // "{\n", no BOM, no NUL
  })

  const refused: [
    string,
    Uint8Array,
    { code: string; message?: RegExp; line?: number; column?: number }
  ][] = [
    [
      'Latin-1 bytes (é as 0xE9)',
      Buffer.from(TEXT.replace('Two machine rooms', 'Deux salles \u00e9'), 'latin1'),
      {
        code: 'invalid-utf8',
        message: /byte 0xE9 at line 5, column 31 is not UTF-8/,
        line: 5,
        column: 31
      }
    ],
    [
      'a lone continuation byte',
      Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0x80]), Buffer.from('"}')]),
      { code: 'invalid-utf8', line: 1, column: 11 }
    ],
    [
      'an overlong encoding of "/"',
      Buffer.concat([Buffer.from('{"a": "'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
      { code: 'invalid-utf8' }
    ],
    [
      'UTF-16 cut to an odd length',
      utf16(TEXT, 'le', true).subarray(0, 101),
      { code: 'invalid-utf16' }
    ],
    [
      'UTF-32',
      Buffer.from([0xff, 0xfe, 0, 0, 0x7b, 0, 0, 0]),
      { code: 'unsupported-encoding', message: /UTF-32/ }
    ],
    ['an empty file', new Uint8Array(0), { code: 'empty-file' }]
  ]
  for (const [name, bytes, want] of refused) {
    it(`reports ${name} with the fix`, () => {
      const opened = readTopologyFile(file(bytes))
      expect(opened.problems).toHaveLength(1)
      const p = opened.problems[0]!
      expect(p).toMatchObject({ code: want.code, path: '$' })
      if (want.message) expect(p.message).toMatch(want.message)
      if (want.line) expect(p).toMatchObject({ line: want.line, column: want.column })
      expect(p.hint).toMatch(/UTF-8|topology/)
    })
  }
})

describe('readTopologyFile: files that are not topology files', () => {
  it('refuses a file far too large before reading it', () => {
    const path = join(dir, 'huge.json')
    const fd = openSync(path, 'w')
    ftruncateSync(fd, 64 * 1024 * 1024) // sparse: costs no disk
    closeSync(fd)
    expect(readTopologyFile(path).problems).toEqual([
      expect.objectContaining({
        code: 'file-too-large',
        message: expect.stringContaining('64.0 MiB')
      })
    ])
  })

  it('names a folder and a missing file', () => {
    mkdirSync(join(dir, 'folder.json'))
    expect(() => readTopologyFile(join(dir, 'folder.json'))).toThrow(
      /folder\.json is a folder, not a topology file/
    )
    expect(() => readTopologyFile(join(dir, 'nope.json'))).toThrow(
      /topology file not found: .*nope\.json/
    )
  })
})

describe('loadTopology and loadTopologyForCli: one loader', () => {
  it('throws every problem with its path and fix', () => {
    const path = file('{\n  "kind": "drstudio/topology",\n  "version": 1,\n}')
    const err = (() => {
      try {
        loadTopology(path)
      } catch (e) {
        return e as TopologyFileError
      }
      throw new Error('no error')
    })()
    expect(err).toBeInstanceOf(TopologyFileError)
    expect(err.message).toContain(`${path} is not a valid topology`)
    expect(err.message).toMatch(
      /\$: not valid JSON at line 3, column 15: trailing comma before "}" \(fix: delete the comma/
    )
  })

  it('gives the CLI printable lines, the same problems and the file name', () => {
    const path = file(JSON.stringify({ ...JSON.parse(TEXT), version: 2 }))
    const r = loadTopologyForCli(path)
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problems.map((p) => p.code)).toEqual(['wrong-version'])
    expect(r.lines[0]).toBe(
      `${path}: $.version: version 2 was written by a newer DR Studio; this build of DR Studio reads version 1 (fix: upgrade DR Studio to open this file)`
    )
    expect(r.lines.at(-1)).toContain(`drstudio validate ${path}`)
    expect(loadTopologyForCli(file(TEXT))).toMatchObject({
      ok: true,
      topology: { name: 'two-rooms' }
    })
  })

  it('returns a document with its problems (so the editor can show them), not a crash', () => {
    const opened = readTopologyFile(file(TEXT.replace('"ns-1"', '"ns 1"')))
    expect(opened.document).toMatchObject({ kind: 'drstudio/topology' })
    expect(opened.problems.map((p) => p.path)).toEqual(['$.rooms[0].nameServers[0].id'])
  })
})
