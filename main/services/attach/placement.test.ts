import { describe, expect, it } from 'vitest'
import { AttachInputError } from './addresses'
import type { DiscoveredBrokerSet } from './cluster-merge'
import { mergeClusterInfos } from './cluster-merge'
import { APP_WORDS, compilePattern, placeRooms, resolveMode, RoomNamer } from './placement'
import { inSubnet, matchRoomMap, parseRoomMap, selectorKind } from './room-map'
import type { FakeBroker } from './testing-fakes'
import { clusterInfo } from './testing-fakes'

function sets(brokers: FakeBroker[]): DiscoveredBrokerSet[] {
  return mergeClusterInfos([{ address: 'ns', info: clusterInfo(brokers) }]).brokerSets
}

const zoned = sets([
  { brokerName: 'broker-a', zone: 'room1', addrs: { 0: '10.1.0.2:10911', 1: '10.1.0.3:10911' } },
  { brokerName: 'broker-b', zone: 'room2', addrs: { 0: '10.2.0.2:10911' } }
])
const bare = sets([
  { brokerName: 'room1-broker', addrs: { 0: '10.1.0.2:10911' } },
  { brokerName: 'room2-broker', addrs: { 0: '10.2.0.2:10911' } }
])

describe('parseRoomMap', () => {
  it('reads selector → room and room → [selectors] in YAML or JSON', () => {
    const yaml = parseRoomMap(
      [
        'broker-a: room1',
        '10.0.0.1:9876: room1',
        '10.2.0.0/16: room2',
        'room3: [ns3.corp, broker-c]'
      ].join('\n'),
      'rooms.yaml'
    )
    expect(yaml.entries.map((e) => [e.selector, e.kind, e.room])).toEqual([
      ['broker-a', 'word', 'room1'],
      ['10.0.0.1:9876', 'address', 'room1'],
      ['10.2.0.0/16', 'subnet', 'room2'],
      ['ns3.corp', 'word', 'room3'],
      ['broker-c', 'word', 'room3']
    ])
    expect(yaml.entries[0]?.where).toBe('rooms.yaml: "broker-a"')
    const json = parseRoomMap('{"broker-a":"room1"}', 'rooms.json')
    expect(json.entries).toHaveLength(1)
  })

  it('names the file and key of every mistake', () => {
    expect(() => parseRoomMap('[1, 2]', 'm.yaml')).toThrow(/m\.yaml: a room map is an object/)
    expect(() => parseRoomMap('{}', 'm.yaml')).toThrow(/m\.yaml: the room map is empty/)
    expect(() => parseRoomMap('broker-a: 1room', 'm.yaml')).toThrow(
      /m\.yaml: "broker-a": room "1room" is not a room id/
    )
    expect(() => parseRoomMap('broker-a: {x: 1}', 'm.yaml')).toThrow(
      /m\.yaml: "broker-a": the value must be/
    )
    expect(() => parseRoomMap('10.0.0.0/40: room1', 'm.yaml')).toThrow(/not an IPv4 subnet/)
    expect(() => parseRoomMap('"fd00::/8": room1', 'm.yaml')).toThrow(
      /IPv6 subnets are not supported/
    )
    expect(() => parseRoomMap('room1: [""]', 'm.yaml')).toThrow(/list entries are/)
    expect(() => parseRoomMap('a: [b', 'm.yaml')).toThrow(/m\.yaml: not valid JSON or YAML/)
  })
})

describe('selectorKind / inSubnet / matchRoomMap', () => {
  it('classifies keys', () => {
    expect(selectorKind('10.0.0.0/8', 'w')).toBe('subnet')
    expect(selectorKind('h:1', 'w')).toBe('address')
    expect(selectorKind('broker-a', 'w')).toBe('word')
  })

  it('matches IPv4 subnets', () => {
    expect(inSubnet('10.2.3.4', '10.2.0.0/16')).toBe(true)
    expect(inSubnet('10.3.3.4', '10.2.0.0/16')).toBe(false)
    expect(inSubnet('10.3.3.4', '0.0.0.0/0')).toBe(true)
    expect(inSubnet('host.corp', '10.2.0.0/16')).toBe(false)
  })

  it('prefers address over host over broker name over the narrowest subnet', () => {
    const map = parseRoomMap(
      [
        '10.0.0.0/8: wide',
        '10.1.0.0/16: narrow',
        'broker-a: byname',
        '10.1.0.2: byhost',
        '10.1.0.2:10911: byaddress'
      ].join('\n'),
      'm'
    )
    const room = (address: string, brokerName?: string) => {
      const m = matchRoomMap(map, { address, ...(brokerName ? { brokerName } : {}) })
      return m.kind === 'room' ? m.room : m.kind
    }
    expect(room('10.1.0.2:10911', 'broker-a')).toBe('byaddress')
    expect(room('10.1.0.2:10912', 'broker-a')).toBe('byhost')
    expect(room('10.1.0.9:10911', 'broker-a')).toBe('byname')
    expect(room('10.1.0.9:10911', 'broker-z')).toBe('narrow')
    expect(room('10.9.0.9:10911')).toBe('wide')
    expect(room('192.168.0.1:1')).toBe('none')
  })

  it('reports equally specific entries that disagree', () => {
    const map = parseRoomMap('room1: [broker-a]\nroom2: [broker-a]', 'm')
    expect(matchRoomMap(map, { address: 'x:1', brokerName: 'broker-a' }).kind).toBe('conflict')
  })
})

describe('compilePattern / resolveMode / RoomNamer', () => {
  it('needs a valid pattern with a capture group', () => {
    expect(compilePattern('^(room\\d+)-', 'flag').exec('room1-b')?.[1]).toBe('room1')
    expect(() => compilePattern('^room\\d+', '--rooms-by-name REGEX')).toThrow(
      /--rooms-by-name REGEX: \/\^room\\d\+\/ has no capture group/
    )
    expect(() => compilePattern('(', 'flag')).toThrow(/is not a regular expression/)
  })

  it('resolves the mode from what was given', () => {
    expect(resolveMode({})).toBe('zone')
    expect(resolveMode({ brokerPattern: '(x)' })).toBe('regex')
    expect(resolveMode({ map: parseRoomMap('a: r', 'm') })).toBe('map')
    expect(resolveMode({ mode: 'zone', map: parseRoomMap('a: r', 'm') })).toBe('zone')
  })

  it('makes valid, stable, distinct room ids from zones', () => {
    const n = new RoomNamer()
    expect(n.id('room1')).toBe('room1')
    expect(n.id('cn-hangzhou-a')).toBe('cn-hangzhou-a')
    expect(n.id('1a')).toBe('room-1a')
    expect(n.id('zone b')).toBe('room-zone-b')
    expect(n.id('zone/b')).toBe('room-zone-b-2')
    expect(n.id('1a')).toBe('room-1a')
    expect(n.nameOf('room-zone-b')).toBe('zone b')
    expect(n.nameOf('other')).toBe('other')
  })
})

describe('placeRooms', () => {
  const ns = ['10.1.0.1:9876', '10.2.0.1:9876']

  it('by zone: brokers by their zone, name servers by the hosts they share with brokers', () => {
    const p = placeRooms({ brokerSets: zoned, nameServers: ['10.1.0.2:9876', '10.2.0.2:9876'] }, {})
    expect(p.mode).toBe('zone')
    expect(p.unplaced).toEqual([])
    expect(p.brokers).toEqual({
      '10.1.0.2:10911': { room: 'room1', by: 'zone room1' },
      '10.1.0.3:10911': { room: 'room1', by: 'zone room1' },
      '10.2.0.2:10911': { room: 'room2', by: 'zone room2' }
    })
    expect(p.nameServers['10.1.0.2:9876']).toEqual({
      room: 'room1',
      by: 'same host as the brokers of room1'
    })
    expect(p.rooms).toEqual([
      { id: 'room1', name: 'room1' },
      { id: 'room2', name: 'room2' }
    ])
  })

  it('lists name servers no rule places, with the exact map line', () => {
    const p = placeRooms({ brokerSets: zoned, nameServers: ns }, {})
    expect(p.unplaced).toEqual([
      {
        kind: 'nameserver',
        subject: 'name server 10.1.0.1:9876',
        address: '10.1.0.1:9876',
        reason: 'name servers carry no zone and no rule names this one',
        fix: 'add "10.1.0.1:9876: <room>" to the rooms map (--rooms-map FILE), or use --namesrv-rooms-by-host REGEX'
      },
      expect.objectContaining({ address: '10.2.0.1:9876' })
    ])
  })

  it('does not place a name server by a host that runs brokers of two rooms', () => {
    const loop = sets([
      { brokerName: 'a', zone: 'room1', addrs: { 0: '127.0.0.1:10911' } },
      { brokerName: 'b', zone: 'room2', addrs: { 0: '127.0.0.1:10921' } }
    ])
    const p = placeRooms({ brokerSets: loop, nameServers: ['127.0.0.1:9876'] }, {})
    expect(p.unplaced[0]?.reason).toBe('its host 127.0.0.1 also runs brokers of room1 and room2')
  })

  it('by zone with a map for the name servers (subnets)', () => {
    const map = parseRoomMap('10.1.0.0/16: room1\n10.2.0.0/16: room2', 'rooms.yaml')
    const p = placeRooms({ brokerSets: zoned, nameServers: ns }, { mode: 'zone', map })
    expect(p.unplaced).toEqual([])
    expect(p.nameServers['10.2.0.1:9876']).toEqual({
      room: 'room2',
      by: 'rooms.yaml: "10.2.0.0/16"'
    })
    expect(p.notes).toEqual([])
  })

  it('notes a map entry that overrides a zone', () => {
    const map = parseRoomMap(
      '10.1.0.3:10911: room2\n10.1.0.1:9876: room1\n10.2.0.1:9876: room2',
      'm'
    )
    const p = placeRooms({ brokerSets: zoned, nameServers: ns }, { mode: 'zone', map })
    expect(p.brokers['10.1.0.3:10911']?.room).toBe('room2')
    expect(p.notes).toEqual([
      'm: "10.1.0.3:10911" puts broker-a brokerId 1 in room2 although its zone is room1'
    ])
  })

  it('lists brokers without a zone with the three fixes', () => {
    const p = placeRooms({ brokerSets: bare, nameServers: [] }, {})
    expect(p.unplaced).toEqual([
      {
        kind: 'broker',
        subject: 'room1-broker brokerId 0',
        address: '10.1.0.2:10911',
        reason: 'room1-broker has no zone (it was started without ROCKETMQ_ZONE)',
        fix:
          'restart it with ROCKETMQ_ZONE=<room>, or add "room1-broker: <room>" (or "10.1.0.2:10911: <room>" for this node only) ' +
          'to the rooms map (--rooms-map FILE), or use --rooms-by-name REGEX'
      },
      expect.objectContaining({ subject: 'room2-broker brokerId 0' })
    ])
  })

  it('by map: every node from the map, missing ones listed', () => {
    const map = parseRoomMap('room1-broker: room1\n10.1.0.1:9876: room1', 'm.yaml')
    const p = placeRooms({ brokerSets: bare, nameServers: ns }, { map })
    expect(p.mode).toBe('map')
    expect(p.brokers['10.1.0.2:10911']).toEqual({ room: 'room1', by: 'm.yaml: "room1-broker"' })
    expect(p.unplaced.map((u) => [u.kind, u.address, u.reason])).toEqual([
      ['broker', '10.2.0.2:10911', 'room2-broker is not in the room map'],
      ['nameserver', '10.2.0.1:9876', 'name servers carry no zone and no rule names this one']
    ])
  })

  it('by broker-name pattern, with a host pattern for name servers', () => {
    const hosts = ['ns-room1.corp:9876', 'ns-room2.corp:9876']
    const p = placeRooms(
      { brokerSets: bare, nameServers: hosts },
      { brokerPattern: '^(room\\d+)-', namesrvPattern: '^ns-(room\\d+)\\.' },
      APP_WORDS
    )
    expect(p.mode).toBe('regex')
    expect(p.unplaced).toEqual([])
    expect(p.brokers['10.2.0.2:10911']?.room).toBe('room2')
    expect(p.nameServers['ns-room1.corp:9876']).toEqual({
      room: 'room1',
      by: 'host pattern /^ns-(room\\d+)\\./ → room1'
    })
  })

  it('lists a broker the pattern does not match, in the dialog’s words', () => {
    const p = placeRooms(
      { brokerSets: zoned, nameServers: [] },
      { brokerPattern: '^(room\\d+)-' },
      APP_WORDS
    )
    expect(p.unplaced[0]).toMatchObject({
      reason: 'broker name broker-a does not match /^(room\\d+)-/ (or its first group is empty)',
      fix: expect.stringContaining(
        'change the Broker-name pattern so its first group captures the room'
      )
    })
  })

  it('lists a broker of a set whose zone the name servers disagree on', () => {
    const conflict = mergeClusterInfos([
      { address: 'n1', info: clusterInfo([{ brokerName: 'x', zone: 'r1', addrs: { 0: 'h:1' } }]) },
      { address: 'n2', info: clusterInfo([{ brokerName: 'x', zone: 'r2', addrs: { 0: 'h:1' } }]) }
    ]).brokerSets
    const p = placeRooms({ brokerSets: conflict, nameServers: [] }, {})
    expect(p.unplaced[0]?.reason).toBe('name servers report different zones for its broker set')
  })

  it('lists nodes the map contradicts itself on', () => {
    const map = parseRoomMap('room1: [broker-a]\nroom2: [broker-a]', 'm')
    const p = placeRooms({ brokerSets: zoned, nameServers: [] }, { map, mode: 'zone' })
    expect(p.unplaced[0]?.reason).toBe(
      'the room map disagrees: m: "broker-a" → room1, m: "broker-a" → room2'
    )
  })

  it('refuses map mode without a map and regex mode without a pattern', () => {
    expect(() => placeRooms({ brokerSets: zoned, nameServers: [] }, { mode: 'map' })).toThrow(
      AttachInputError
    )
    expect(() => placeRooms({ brokerSets: zoned, nameServers: [] }, { mode: 'regex' })).toThrow(
      /needs --rooms-by-name REGEX/
    )
  })

  it('orders rooms naturally and keeps a zone’s own name', () => {
    const many = sets([
      { brokerName: 'a', zone: 'room10', addrs: { 0: 'h1:1' } },
      { brokerName: 'b', zone: 'room2', addrs: { 0: 'h2:1' } },
      { brokerName: 'c', zone: 'az 1', addrs: { 0: 'h3:1' } }
    ])
    const p = placeRooms({ brokerSets: many, nameServers: [] }, {})
    expect(p.rooms).toEqual([
      { id: 'room-az-1', name: 'az 1' },
      { id: 'room2', name: 'room2' },
      { id: 'room10', name: 'room10' }
    ])
  })
})
