import { beforeEach, describe, expect, it } from 'vitest'
import type { ClusterDiscoverOutput } from '../../../common/contract'
import { topologySchema } from '../../../common/topology'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { requestOf, useConnectStore } from './connect-store'
import { useEditorStore } from './editor-store'
import { emptyTopology } from '../model/document'

const discovered = topologySchema.parse({
  kind: 'drstudio/topology',
  version: 1,
  name: 'discovered-C',
  rooms: [
    {
      id: 'room1',
      nameServers: [{ id: 'ns-1', host: '10.0.0.1', port: 9876 }],
      brokers: [
        { id: 'b', brokerName: 'b', role: 'master', brokerId: 0, host: '10.0.0.2', port: 10911 }
      ]
    }
  ]
})

const calls: { channel: string; payload: unknown }[] = []
let answer: ClusterDiscoverOutput

const fake: RawBridge = {
  transport: 'offline',
  connection: 'open',
  invoke: async (channel, payload) => {
    calls.push({ channel, payload })
    return answer
  },
  on: () => () => {},
  onConnection: () => () => {}
}
initBridge(fake)

const base: ClusterDiscoverOutput = {
  ok: true,
  opened: { path: null, name: 'discovered-C', document: discovered, problems: [] },
  rooms: [{ id: 'room1', name: 'room1', nameServers: 1, brokers: 1 }],
  nameServers: [{ address: '10.0.0.1:9876', ok: true }],
  problems: [],
  warnings: [],
  topic: null
}

beforeEach(() => {
  calls.length = 0
  answer = base
  useEditorStore.getState().load(emptyTopology(), { path: null, fileName: 'untitled.json' })
  useConnectStore.setState({ open: false, busy: false, error: null, result: null, progress: [] })
  useConnectStore.getState().setOpen(true)
})

describe('requestOf', () => {
  it('sends only what applies: no pattern outside pattern mode, no topic boxes without a topic', () => {
    const form = {
      ...useConnectStore.getState().form,
      namesrv: 'h:1',
      rooms: 'zone' as const,
      brokerPattern: '(x)',
      clients: true,
      createTopic: true
    }
    expect(requestOf(form)).toEqual({
      namesrv: 'h:1',
      rooms: 'zone',
      clients: false,
      createTopic: false
    })
    expect(requestOf({ ...form, rooms: 'regex', topic: ' payments ' })).toEqual({
      namesrv: 'h:1',
      rooms: 'regex',
      brokerPattern: '(x)',
      topic: 'payments',
      clients: true,
      createTopic: true
    })
  })
})

describe('connect store', () => {
  it('opens with the create-topic box off and needs name servers', async () => {
    expect(useConnectStore.getState().form.createTopic).toBe(false)
    await useConnectStore.getState().discover()
    expect(useConnectStore.getState().error).toMatch(/Enter the name servers/)
    expect(calls).toEqual([])
  })

  it('opens the discovered topology untitled and closes', async () => {
    useConnectStore.getState().setField('namesrv', '10.0.0.1:9876')
    await useConnectStore.getState().discover()
    expect(calls[0]?.channel).toBe('cluster:discover')
    expect(useConnectStore.getState().open).toBe(false)
    const editor = useEditorStore.getState()
    expect(editor.history.present.name).toBe('discovered-C')
    expect(editor.filePath).toBeNull()
    expect(editor.fileName).toBe('discovered-C.json')
  })

  it('keeps the dialog open with the problems when nothing could be built', async () => {
    answer = {
      ...base,
      ok: false,
      opened: null,
      problems: [
        { code: 'namesrv-unplaced', subject: 'name server h:1', message: 'no rule', fix: 'add it' }
      ]
    }
    useConnectStore.getState().setField('namesrv', 'h:1')
    await useConnectStore.getState().discover()
    const s = useConnectStore.getState()
    expect(s.open).toBe(true)
    expect(s.result?.problems).toHaveLength(1)
    expect(useEditorStore.getState().history.present.rooms).toEqual([])
  })

  it('shows progress only while a discovery runs', () => {
    useConnectStore.getState().applyProgress({ step: 'done', message: 'late' })
    expect(useConnectStore.getState().progress).toEqual([])
    useConnectStore.setState({ busy: true })
    useConnectStore
      .getState()
      .applyProgress({ step: 'cluster-info', message: 'asking', done: 0, total: 2 })
    expect(useConnectStore.getState().progress).toEqual(['asking (0/2)'])
    useConnectStore.getState().setOpen(false)
    expect(useConnectStore.getState().open).toBe(true)
  })
})
