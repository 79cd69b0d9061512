import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Problem } from './validate'
import { formatProblem, parseTopologyText } from './validate'

// Topology files as editors, scripts and copy-paste from a URL produce them. Every case is either
// refused with a problem naming the JSON path (and line/column for text errors) and the fix, or
// accepted on purpose, possibly normalised. Bytes (BOM, UTF-16, Latin-1) are in documents.test.ts.

const BASE = readFileSync('resources/topologies/two-rooms.json', 'utf8')

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any

/** two-rooms.json with an edit, serialised back to text. */
function edited(edit: (doc: Doc) => void): string {
  const doc = JSON.parse(BASE) as Doc
  edit(doc)
  return JSON.stringify(doc, null, 2)
}

/** What a refused input must report; `message`/`hint` are matched as substrings or patterns. */
interface Refusal {
  code: string
  path?: string
  message?: string | RegExp
  hint?: string | RegExp
  line?: number
  column?: number
}

function firstProblem(text: string): Problem {
  const r = parseTopologyText(text)
  if (r.ok) throw new Error('expected a problem, the input was accepted')
  return r.problems[0]!
}

function expectRefusal(text: string, want: Refusal): Problem {
  const p = firstProblem(text)
  expect(p.code, formatProblem(p)).toBe(want.code)
  if (want.path !== undefined) expect(p.path, formatProblem(p)).toBe(want.path)
  if (want.message !== undefined) expect(p.message).toMatch(want.message)
  if (want.hint !== undefined) expect(p.hint).toMatch(want.hint)
  if (want.line !== undefined) expect(p.line).toBe(want.line)
  if (want.column !== undefined) expect(p.column).toBe(want.column)
  expect(p.hint.length).toBeGreaterThan(5)
  return p
}

const broker0 = (d: Doc) => d.rooms[0].brokers[0]
const ns0 = (d: Doc) => d.rooms[0].nameServers[0]

describe('text that is not JSON yet', () => {
  const cases: [string, string, Refusal][] = [
    ['an empty file', '', { code: 'empty-file', path: '$', hint: /two-rooms\.json/ }],
    ['only whitespace', ' \r\n\t \n', { code: 'blank-file' }],
    [
      'a NUL byte (a binary or truncated file)',
      BASE.replace('"name": "two-rooms"', '"name": "two\u0000rooms"'),
      { code: 'nul-character', line: 4, column: 15 }
    ],
    [
      'UTF-16 text read as UTF-8 (every other character NUL)',
      [...BASE].join('\u0000'),
      { code: 'utf16-read-as-utf8', hint: /UTF-8/ }
    ],
    [
      'bytes a browser replaced with U+FFFD (a Latin-1 file opened in the browser shell)',
      BASE.replace('Two machine rooms', 'Two machine r\ufffdoms'),
      { code: 'invalid-utf8', line: 5, message: /not UTF-8/, hint: /UTF-8/ }
    ],
    [
      'a YAML topology',
      'kind: drstudio/topology\nversion: 1\nname: two-rooms\nrooms: []\n',
      { code: 'yaml-not-json', hint: /JSON/ }
    ],
    [
      'a scenario file given as the topology',
      readFileSync('resources/scenarios/healthy.yaml', 'utf8'),
      {
        code: 'scenario-not-topology',
        message: /scenario .*topology "two-rooms"/,
        hint: /drstudio scenario run .*resources\/topologies\/two-rooms\.json/
      }
    ],
    [
      'a file far too large to be a topology',
      `{"kind": "drstudio/topology", "description": "${'x'.repeat(9 * 1024 * 1024)}"}`,
      { code: 'file-too-large', message: /MiB/ }
    ]
  ]
  for (const [name, text, want] of cases) it(`refuses ${name}`, () => expectRefusal(text, want))

  it('accepts a UTF-8 byte-order mark that survived decoding', () => {
    expect(parseTopologyText('\ufeff' + BASE).ok).toBe(true)
  })

  it('accepts CRLF line endings, and counts lines in them correctly', () => {
    expect(parseTopologyText(BASE.replace(/\n/g, '\r\n')).ok).toBe(true)
    expectRefusal('{\r\n  "kind": "drstudio/topology",\r\n  "version": 1,\r\n}', {
      code: 'json-trailing-comma',
      line: 3,
      column: 15
    })
  })
})

describe('JSON syntax: what, where (line, column, path) and the usual cause', () => {
  const cases: [string, string, Refusal][] = [
    [
      'a trailing comma',
      BASE.replace('"queues": 4 }', '"queues": 4, }'),
      {
        code: 'json-trailing-comma',
        path: '$.topics[0]',
        line: 14,
        message: /trailing comma/,
        hint: /delete the comma/
      }
    ],
    [
      'a // comment',
      BASE.replace('"topics"', '// one topic\n  "topics"'),
      { code: 'json-comment', line: 14, column: 3, hint: /description/ }
    ],
    ['a /* */ comment', BASE.replace('"rooms"', '/* rooms */ "rooms"'), { code: 'json-comment' }],
    [
      'a duplicate key (JSON.parse would keep the last one silently)',
      BASE.replace(
        '"nameServers": [{ "id": "ns-1" }]',
        '"nameServers": [{ "id": "ns-1", "port": 9876, "port": 9877 }]'
      ),
      {
        code: 'json-duplicate-key',
        path: '$.rooms[0].nameServers[0].port',
        message:
          /key "port" appears twice in \$\.rooms\[0\]\.nameServers\[0\] \(first at line 20, column 39\)/,
        line: 20,
        column: 53
      }
    ],
    [
      'a duplicate top-level key',
      BASE.replace('"version": 1,', '"version": 1,\n  "name": "copy",'),
      { code: 'json-duplicate-key', path: '$.name' }
    ],
    [
      'single quotes',
      BASE.replace('"two-rooms",', "'two-rooms',"),
      { code: 'json-single-quote', path: '$.name', hint: /replace ' with "/ }
    ],
    [
      'an unquoted key',
      BASE.replace('"version"', 'version'),
      { code: 'json-unquoted-key', hint: 'write "version"' }
    ],
    [
      'NaN',
      BASE.replace('"queues": 4', '"queues": NaN'),
      { code: 'json-bad-number', path: '$.topics[0].queues' }
    ],
    [
      'a leading zero',
      BASE.replace('"queues": 4', '"queues": 04'),
      { code: 'json-bad-number', message: /04 is not a JSON number/ }
    ],
    ['a hex number', BASE.replace('"queues": 4', '"queues": 0x4'), { code: 'json-bad-number' }],
    [
      'Python True',
      BASE.replace('"zoneMode": false', '"zoneMode": False'),
      { code: 'json-bad-literal', hint: 'write false' }
    ],
    [
      'an unquoted word',
      BASE.replace('"round-robin"', 'roundrobin'),
      { code: 'json-bad-literal', hint: 'put text in double quotes: "roundrobin"' }
    ],
    [
      'a missing comma',
      BASE.replace('"version": 1,', '"version": 1'),
      { code: 'json-missing-comma', line: 4 }
    ],
    [
      'a missing colon',
      BASE.replace('"version": 1', '"version" 1'),
      { code: 'json-missing-colon', path: '$.version' }
    ],
    [
      'a Windows path with single backslashes',
      BASE.replace('"two-rooms",', '"C:\\data\\two-rooms",'),
      { code: 'json-bad-escape', hint: /C:\\\\data/ }
    ],
    [
      'a raw line break in a string',
      BASE.replace('"Two machine', '"Two\nmachine'),
      { code: 'json-control-character', path: '$.description' }
    ],
    [
      'an unterminated string',
      '{"kind": "drstudio/topology',
      { code: 'json-unterminated-string', line: 1, column: 10 }
    ],
    [
      'a file cut in half',
      BASE.slice(0, BASE.indexOf('"rooms"')),
      { code: 'json-unexpected-end', hint: /cut short/ }
    ],
    [
      'two documents concatenated',
      BASE + BASE,
      { code: 'json-trailing-data', line: 56, column: 1 }
    ],
    [
      'an invisible no-break space between tokens (pasted from a web page)',
      BASE.replace('"version": 1', '"version":\u00a01'),
      { code: 'json-bad-space', message: /U\+00A0/ }
    ],
    [
      '100 000 nested arrays (never a stack overflow)',
      '['.repeat(100_000),
      { code: 'json-too-deep', message: /64 levels/ }
    ]
  ]
  for (const [name, text, want] of cases) it(`refuses ${name}`, () => expectRefusal(text, want))

  it('reads a "__proto__" key as data, never as the prototype (then refuses it as unknown)', () => {
    const p = expectRefusal(
      BASE.replace('"version": 1,', '"version": 1, "__proto__": {"polluted": true},'),
      {
        code: 'unknown-key',
        path: '$.__proto__'
      }
    )
    expect(p).toBeDefined()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('the document is not a topology object', () => {
  const cases: [string, string, Refusal][] = [
    [
      'a JSON array',
      `[${BASE}]`,
      { code: 'not-an-object', message: /array/, hint: /several files/ }
    ],
    ['a JSON string', '"two-rooms"', { code: 'not-an-object', message: /string/ }],
    [
      'JSON encoded twice by a script',
      JSON.stringify(BASE),
      { code: 'not-an-object', message: /encoded twice/, hint: /JSON\.stringify|json\.dumps/ }
    ],
    ['a number', '42', { code: 'not-an-object', message: /number 42/ }],
    ['null', 'null', { code: 'not-an-object', message: /null/ }],
    [
      'a scenario (as JSON)',
      JSON.stringify({ kind: 'drstudio/scenario', version: 1 }),
      { code: 'wrong-kind', message: /scenario/, hint: /drstudio scenario run/ }
    ],
    [
      'another tool’s file',
      edited((d) => (d.kind = 'k8s/deployment')),
      {
        code: 'wrong-kind',
        path: '$.kind',
        message: /"k8s\/deployment"/,
        hint: /drstudio\/topology/
      }
    ],
    [
      'a file without "kind"',
      edited((d) => delete d.kind),
      { code: 'wrong-kind', message: /missing/ }
    ],
    [
      'a newer version',
      edited((d) => (d.version = 2)),
      {
        code: 'wrong-version',
        message:
          /version 2 was written by a newer DR Studio; this build of DR Studio reads version 1/,
        hint: /upgrade/
      }
    ],
    [
      'version as a string',
      edited((d) => (d.version = '1')),
      { code: 'wrong-version', hint: '"version": 1' }
    ],
    [
      'a file without "version"',
      edited((d) => delete d.version),
      { code: 'wrong-version', message: /reads version 1/ }
    ]
  ]
  for (const [name, text, want] of cases) it(`refuses ${name}`, () => expectRefusal(text, want))
})

describe('keys', () => {
  const cases: [string, string, Refusal][] = [
    [
      'a typo of a known key',
      edited((d) => (ns0(d).prot = 9876)),
      {
        code: 'unknown-key',
        path: '$.rooms[0].nameServers[0].prot',
        message: /did you mean "port"/,
        hint: 'rename it to "port"'
      }
    ],
    [
      'a wrong-case setting (silently the default before)',
      edited((d) => (d.settings.probeIntervalMS = 200)),
      { code: 'unknown-key', hint: 'rename it to "probeIntervalMs"' }
    ],
    [
      'an unrelated key',
      edited((d) => (d.rooms[1].owner = 'team-a')),
      { code: 'unknown-key', path: '$.rooms[1].owner', hint: /remove it/ }
    ],
    [
      'a typo of a key the old hand-written list lacked (keys now come from the schema)',
      edited((d) => (d.rooms[0].controlers = [])),
      { code: 'unknown-key', message: /did you mean "controllers"/ }
    ],
    [
      'a key of another object, which is not "meant" here',
      edited((d) => (d.settings.port = 9876)),
      { code: 'unknown-key', path: '$.settings.port', hint: /remove it/ }
    ]
  ]
  for (const [name, text, want] of cases) it(`refuses ${name}`, () => expectRefusal(text, want))

  it('accepts an editor’s "$schema" key on purpose', () => {
    expect(
      parseTopologyText(edited((d) => (d.$schema = 'https://example.org/topology.json'))).ok
    ).toBe(true)
  })
})

describe('ports', () => {
  const cases: [string, unknown, Refusal][] = [
    [
      'a port as a string (a script’s --arg)',
      '9876',
      {
        code: 'invalid-port',
        message: 'port is the string "9876"',
        hint: 'write the number without quotes: "port": 9876'
      }
    ],
    ['a fractional port', 9876.5, { code: 'invalid-port', message: /not a whole number/ }],
    ['port 0', 0, { code: 'invalid-port', message: /any free port/, hint: /remove "port"/ }],
    ['port 65536', 65536, { code: 'invalid-port', message: /out of range/, hint: '1 to 65535' }],
    ['a negative port', -1, { code: 'invalid-port', message: /out of range/ }],
    [
      'a word as port',
      'auto',
      { code: 'schema', message: /port is the string "auto"; expected number/ }
    ]
  ]
  for (const [name, port, want] of cases) {
    it(`refuses ${name}`, () =>
      expectRefusal(
        edited((d) => Object.assign(ns0(d), { host: '10.0.0.1', port })),
        { path: '$.rooms[0].nameServers[0].port', ...want }
      ))
  }

  it('accepts 9876.0 (JSON cannot tell it from 9876)', () => {
    expect(
      parseTopologyText(
        BASE.replace('{ "id": "ns-1" }', '{ "id": "ns-1", "host": "10.0.0.1", "port": 9876.0 }')
      ).ok
    ).toBe(true)
  })

  it('explains other numbers written as strings too', () => {
    expectRefusal(
      edited((d) => (broker0(d).brokerId = '0')),
      {
        code: 'schema',
        path: '$.rooms[0].brokers[0].brokerId',
        hint: 'write the number without quotes: "brokerId": 0'
      }
    )
  })
})

describe('hosts', () => {
  /** Refused host values, placed on a name server with a port. */
  const refused: [string, Refusal][] = [
    [
      'http://10.0.0.1:9876',
      {
        code: 'invalid-value',
        message: /is a URL/,
        hint: 'write "host": "10.0.0.1" and "port": 9876'
      }
    ],
    [
      '10.0.0.1:9876',
      {
        code: 'invalid-value',
        message: /includes a port/,
        hint: 'write "host": "10.0.0.1" and "port": 9876'
      }
    ],
    ['[::1]', { code: 'invalid-value', message: /IPv6 addresses are not supported/ }],
    ['::1', { code: 'invalid-value', message: /IPv6/ }],
    ['', { code: 'invalid-value', message: 'host is empty', hint: /remove "host"/ }],
    ['   ', { code: 'invalid-value', message: 'host is empty' }],
    [
      'ns_1.room1.example',
      { code: 'invalid-value', message: /"_"/, hint: 'use a hyphen: "ns-1.room1.example"' }
    ],
    [
      'räum1.example',
      {
        code: 'invalid-value',
        message: /non-ASCII/,
        hint: 'write its ASCII (punycode) form: "xn--rum1-loa.example"'
      }
    ],
    ['010.0.0.1', { code: 'invalid-value', message: /leading zero.*octal/, hint: '"10.0.0.1"' }],
    ['10.0.0', { code: 'invalid-value', message: /not a full IPv4 address/ }],
    ['10.0.0.300', { code: 'invalid-value', message: /above 255/ }],
    ['0.0.0.0', { code: 'invalid-value', message: /every interface/ }],
    ['ns1..example', { code: 'invalid-value', message: /empty label/ }],
    ['ns1.example/', { code: 'invalid-value', message: /"\/"/ }],
    ['ns 1.example', { code: 'invalid-value', message: /space/ }],
    [
      'ns1\u200b.example',
      {
        code: 'invalid-value',
        message: /invisible U\+200B ZERO WIDTH SPACE at character 4/,
        hint: /pasted/
      }
    ],
    ['-ns1.example', { code: 'invalid-value', message: /starts or ends with "-"/ }]
  ]
  for (const [host, want] of refused) {
    it(`refuses ${JSON.stringify(host)}`, () =>
      expectRefusal(
        edited((d) => Object.assign(ns0(d), { host, port: 9876 })),
        { path: '$.rooms[0].nameServers[0].host', ...want }
      ))
  }

  it('explains a host with a port when the port field is missing', () => {
    expectRefusal(
      edited((d) => (ns0(d).host = '10.0.0.1:9876')),
      { code: 'invalid-value', hint: 'write "host": "10.0.0.1" and "port": 9876' }
    )
  })

  /** Accepted on purpose, with the value kept. */
  const accepted: [string, string][] = [
    ['localhost', 'localhost'],
    ['10.0.0.1', '10.0.0.1'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['\tns1.room1.example\n', 'ns1.room1.example'],
    ['ns1.room1.example.', 'ns1.room1.example'],
    ['NS1.Room1.Example', 'NS1.Room1.Example']
  ]
  for (const [host, kept] of accepted) {
    it(`accepts ${JSON.stringify(host)} as ${JSON.stringify(kept)}`, () => {
      const r = parseTopologyText(edited((d) => Object.assign(ns0(d), { host, port: 9876 })))
      expect(r.ok && r.topology.rooms[0]!.nameServers[0]!.host).toBe(kept)
    })
  }
})

describe('ids and names', () => {
  const cases: [string, (d: Doc) => void, Refusal][] = [
    [
      'an id with a space',
      (d) => (ns0(d).id = 'ns 1'),
      {
        code: 'invalid-value',
        path: '$.rooms[0].nameServers[0].id',
        message: 'id "ns 1" contains a space',
        hint: /"ns-1"/
      }
    ],
    [
      'an id with a zero-width space',
      (d) => (ns0(d).id = 'ns\u200b-1'),
      { code: 'invalid-value', message: /invisible U\+200B ZERO WIDTH SPACE at character 3/ }
    ],
    [
      'an id starting with a digit',
      (d) => (d.rooms[0].id = '1room'),
      { code: 'invalid-value', path: '$.rooms[0].id', message: /does not start with a letter/ }
    ],
    [
      'an id with an accent',
      (d) => (ns0(d).id = 'ns-é'),
      { code: 'invalid-value', message: /contains "é"/, hint: '"ns-e"' }
    ],
    [
      'a 64-character id',
      (d) => (ns0(d).id = `n${'s'.repeat(63)}`),
      { code: 'invalid-value', message: /64 characters/ }
    ],
    [
      'a topic RocketMQ refuses',
      (d) => (d.topics[0].name = 'orders.eu'),
      {
        code: 'invalid-value',
        path: '$.topics[0].name',
        message: /RocketMQ allows only/,
        hint: '"orders-eu"'
      }
    ],
    [
      'a group with a space',
      (d) => (d.rooms[0].consumers[0].group = 'orders consumer'),
      { code: 'invalid-value', message: /contains a space/ }
    ],
    [
      'a topic in decomposed Unicode',
      (d) => (d.topics[0].name = 'cafe\u0301'),
      { code: 'invalid-value', message: /RocketMQ allows only/ }
    ],
    [
      'a brokerName with an invisible character',
      (d) => (broker0(d).brokerName = 'broker\u00ada'),
      { code: 'invalid-value', message: /SOFT HYPHEN/ }
    ],
    [
      'a topic declared twice',
      (d) => d.topics.push({ name: 'orders', queues: 8 }),
      { code: 'duplicate-topic', path: '$.topics[1].name' }
    ],
    [
      'a lane typo',
      (d) => (d.rooms[0].producers[0].lane = 'grcp'),
      {
        code: 'schema',
        message:
          /lane is the string "grcp"; expected one of "remoting", "java", "java-zone", "java-tuned", "java-dr", "grpc", "baseline"/
      }
    ]
  ]
  for (const [name, edit, want] of cases)
    it(`refuses ${name}`, () => expectRefusal(edited(edit), want))

  it('treats NFC and NFD spellings of one brokerName as one name (normalised to NFC)', () => {
    const r = parseTopologyText(
      edited((d) => {
        broker0(d).brokerName = 'brok\u00e9r'
        d.rooms[1].brokers[0].brokerName = 'broke\u0301r'
        d.rooms[1].brokers[0].cluster = 'DrCluster'
      })
    )
    expect(r.ok).toBe(false)
    expect(!r.ok && r.problems.map((p) => p.code)).toEqual(['duplicate-master'])
  })

  it('trims a brokerName pasted with spaces', () => {
    const r = parseTopologyText(edited((d) => (broker0(d).brokerName = ' broker-a ')))
    expect(r.ok && r.topology.rooms[0]!.brokers[0]!.brokerName).toBe('broker-a')
  })
})
