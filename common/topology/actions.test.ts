import { describe, expect, it } from 'vitest'
import {
  exampleActionCommand,
  actionProblems,
  offeredActions,
  parseTemplate,
  renderNodeAction,
  renderTemplate,
  resolveNodeActions,
  shellQuote
} from './actions'
import type { Topology } from './schema'
import { OPERATOR_ACTIONS } from './schema'
import { topologySchema } from './schema'
import { validateTopology } from './validate'

function topo(extra: Record<string, unknown> = {}, room1: Record<string, unknown> = {}): Topology {
  return topologySchema.parse({
    kind: 'drstudio/topology',
    version: 1,
    name: 't',
    rooms: [
      {
        id: 'room1',
        nameServers: [{ id: 'ns-1', host: '10.0.0.1', port: 9876 }],
        brokers: [
          {
            id: 'broker-a',
            brokerName: 'broker-a',
            role: 'master',
            brokerId: 0,
            host: '10.0.0.2',
            port: 10911,
            actions: { kill: 'ssh {host} sudo systemctl kill -s KILL rmq-broker@{id}' }
          }
        ],
        ...room1
      },
      {
        id: 'room2',
        nameServers: [{ id: 'ns-2' }],
        brokers: [{ id: 'broker-b', brokerName: 'broker-b', role: 'master', brokerId: 0 }]
      }
    ],
    ...extra
  })
}

describe('parseTemplate', () => {
  it('splits text and the four placeholders', () => {
    const r = parseTemplate('ssh {host} -p {port} restart {id} in {room}')
    expect(r).toEqual({
      ok: true,
      parts: [
        { text: 'ssh ' },
        { placeholder: 'host' },
        { text: ' -p ' },
        { placeholder: 'port' },
        { text: ' restart ' },
        { placeholder: 'id' },
        { text: ' in ' },
        { placeholder: 'room' }
      ]
    })
  })

  it('reads doubled braces as literal braces', () => {
    expect(parseTemplate("awk '{{print $1}}' ${{HOME}}")).toEqual({
      ok: true,
      parts: [{ text: "awk '{print $1}' ${HOME}" }]
    })
  })

  it('refuses an unknown placeholder, naming it and the known ones', () => {
    const r = parseTemplate('kill -9 {pid}')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.error.index).toBe(8)
    expect(r.error.message).toContain('unknown placeholder {pid}')
    expect(r.error.message).toContain('{host}, {port}, {id}, {room}')
  })

  it('refuses unbalanced braces', () => {
    expect(parseTemplate('echo {host').ok).toBe(false)
    expect(parseTemplate('echo }').ok).toBe(false)
    expect(parseTemplate('echo ${HOME}').ok).toBe(false)
  })
})

describe('shellQuote / renderTemplate', () => {
  it('leaves safe words alone and single-quotes the rest', () => {
    expect(shellQuote('10.0.0.1')).toBe('10.0.0.1')
    expect(shellQuote('rmq-host.corp:22')).toBe('rmq-host.corp:22')
    expect(shellQuote('')).toBe("''")
    expect(shellQuote('a b')).toBe("'a b'")
    expect(shellQuote("it's; rm -rf /")).toBe("'it'\\''s; rm -rf /'")
    expect(shellQuote('$(reboot)')).toBe("'$(reboot)'")
  })

  it('substitutes quoted values', () => {
    expect(
      renderTemplate('ssh {host} stop {id}', {
        host: 'evil; reboot',
        port: '1',
        id: 'broker-a',
        room: 'r'
      })
    ).toBe("ssh 'evil; reboot' stop broker-a")
  })

  it('throws on a template that does not parse', () => {
    expect(() => renderTemplate('x {nope}', { host: '', port: '', id: '', room: '' })).toThrow(
      /unknown placeholder \{nope\}/
    )
  })
})

describe('resolveNodeActions / offeredActions', () => {
  it('offers exactly the actions with a command, node-level over room-level, in menu order', () => {
    const t = topo(
      {},
      {
        actions: {
          broker: { restart: 'ssh {host} systemctl restart rmq', kill: 'room-level kill' },
          nameserver: { stop: 'ssh {host} systemctl stop mqnamesrv' }
        }
      }
    )
    expect(offeredActions(t, 'broker-a')).toEqual(['kill', 'restart'])
    const resolved = resolveNodeActions(t, 'broker-a')
    expect(resolved[0]).toMatchObject({
      action: 'kill',
      from: 'node',
      path: '$.rooms[0].brokers[0].actions.kill'
    })
    expect(resolved[1]).toMatchObject({
      action: 'restart',
      from: 'room',
      path: '$.rooms[0].actions.broker.restart'
    })
    expect(offeredActions(t, 'ns-1')).toEqual(['stop'])
  })

  it('offers nothing for sandbox nodes, clients or unknown ids', () => {
    const t = topo()
    expect(offeredActions(t, 'broker-b')).toEqual([])
    expect(offeredActions(t, 'ns-2')).toEqual([])
    expect(offeredActions(t, 'nobody')).toEqual([])
  })

  it('renders a node command with its own values', () => {
    const t = topo()
    expect(renderNodeAction(t, 'broker-a', 'kill')).toEqual({
      command: 'ssh 10.0.0.2 sudo systemctl kill -s KILL rmq-broker@broker-a',
      template: 'ssh {host} sudo systemctl kill -s KILL rmq-broker@{id}',
      path: '$.rooms[0].brokers[0].actions.kill'
    })
    expect(renderNodeAction(t, 'broker-a', 'pause')).toBeUndefined()
  })
})

describe('actionProblems (through validateTopology)', () => {
  it('accepts a valid topology with actions', () => {
    expect(validateTopology(topo())).toMatchObject({ ok: true })
  })

  it('names the JSON path of an unknown placeholder', () => {
    const t = topo({}, { actions: { broker: { pause: 'kill -STOP {pid}' } } })
    const problems = actionProblems(t)
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'action-template',
        path: '$.rooms[0].actions.broker.pause',
        message: expect.stringContaining('unknown placeholder {pid}')
      })
    ])
    const v = validateTopology(t)
    expect(v.ok).toBe(false)
  })

  it('refuses actions on a node DR Studio starts itself', () => {
    const t = topologySchema.parse({
      ...topo(),
      rooms: [
        {
          id: 'room1',
          brokers: [
            {
              id: 'b',
              brokerName: 'b',
              role: 'master',
              brokerId: 0,
              actions: { kill: 'x {host}' }
            }
          ]
        }
      ]
    })
    expect(actionProblems(t)).toEqual([
      expect.objectContaining({
        code: 'action-not-attached',
        path: '$.rooms[0].brokers[0].actions',
        nodeId: 'b'
      })
    ])
  })

  it('rejects unknown action names and kinds with their path (strict schema)', () => {
    const bad = {
      kind: 'drstudio/topology',
      version: 1,
      name: 't',
      rooms: [
        {
          id: 'room1',
          nameServers: [{ id: 'ns', host: 'h', port: 1, actions: { reboot: 'x' } }],
          actions: { producer: { kill: 'x' } }
        }
      ]
    }
    const v = validateTopology(bad)
    expect(v.ok).toBe(false)
    if (v.ok) return
    const paths = v.problems.map((p) => p.path)
    expect(paths).toContain('$.rooms[0].nameServers[0].actions.reboot')
    expect(paths).toContain('$.rooms[0].actions.producer')
  })
})

describe('exampleActionCommand', () => {
  it('names the kind’s unit, and sends signals for kill, pause and resume (systemd has no pause)', () => {
    expect(exampleActionCommand('nameserver', 'kill')).toBe(
      'ssh {host} sudo systemctl kill -s KILL rmq-namesrv'
    )
    expect(exampleActionCommand('broker', 'pause')).toBe(
      'ssh {host} sudo systemctl kill -s STOP rmq-broker'
    )
    expect(exampleActionCommand('proxy', 'resume')).toBe(
      'ssh {host} sudo systemctl kill -s CONT rmq-proxy'
    )
    expect(exampleActionCommand('controller', 'restart')).toBe(
      'ssh {host} sudo systemctl restart rmq-controller'
    )
    expect(exampleActionCommand('management', 'stop')).toBe(
      'ssh {host} sudo systemctl stop drstudio-mgmt'
    )
    // Every example is a valid template: its only placeholder is {host}.
    for (const a of OPERATOR_ACTIONS)
      expect(parseTemplate(exampleActionCommand('broker', a)).ok).toBe(true)
  })
})
