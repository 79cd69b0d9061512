import { beforeEach, describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import type { RawBridge } from '../lib/bridge'
import { initBridge } from '../lib/bridge'
import { useEditorStore } from './editor-store'
import { answerDocumentQuery } from './file-store'

// The renderer half of the Electron close / quit / reload check (main/app/unsaved-changes.ts).

const calls: { channel: string; payload: unknown }[] = []
let saveFails = false

const electronBridge: RawBridge = {
  transport: 'electron',
  connection: 'open',
  async invoke(channel, payload) {
    calls.push({ channel, payload })
    if (channel === 'topology:save') {
      if (saveFails) throw new Error('EACCES: permission denied')
      return { path: (payload as { path: string }).path, problems: [] }
    }
    return { ok: true }
  },
  on: () => () => {},
  onConnection: () => () => {}
}

beforeEach(() => {
  initBridge(electronBridge)
  calls.length = 0
  saveFails = false
  useEditorStore.getState().load(topologySchema.parse(twoRoomsJson), { path: '/tmp/orders.json' })
})

const answers = () => calls.filter((c) => c.channel === 'document:answer').map((c) => c.payload)

describe('answerDocumentQuery', () => {
  it('answers clean for an untouched document', async () => {
    await answerDocumentQuery({ requestId: 4, save: false })
    expect(answers()).toEqual([{ requestId: 4, dirty: false, fileName: 'orders.json' }])
  })

  it('answers dirty after an edit, without saving', async () => {
    useEditorStore.getState().addRoom()
    await answerDocumentQuery({ requestId: 5, save: false })
    expect(answers()).toEqual([{ requestId: 5, dirty: true, fileName: 'orders.json' }])
    expect(calls.some((c) => c.channel === 'topology:save')).toBe(false)
  })

  it('saves first when asked, then answers clean', async () => {
    useEditorStore.getState().addRoom()
    await answerDocumentQuery({ requestId: 6, save: true })
    expect(calls.map((c) => c.channel)).toEqual(['topology:save', 'document:answer'])
    expect(answers()).toEqual([{ requestId: 6, dirty: false, fileName: 'orders.json' }])
  })

  it('answers still dirty when the save fails, so the window stays', async () => {
    useEditorStore.getState().addRoom()
    saveFails = true
    await answerDocumentQuery({ requestId: 7, save: true })
    expect(answers()).toEqual([{ requestId: 7, dirty: true, fileName: 'orders.json' }])
  })
})
