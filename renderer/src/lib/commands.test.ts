import { afterEach, describe, expect, it, vi } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import { topologySchema } from '../../../common/topology'
import { useEditorStore } from '../stores/editor-store'
import { useUiStore } from '../stores/ui-store'
import { COMMANDS, commandForKey, runMenuCommand } from './commands'

const key = (
  k: string,
  mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}
) =>
  commandForKey({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods })

describe('keyboard shortcuts', () => {
  it('maps edit, file and run shortcuts', () => {
    expect(key('z', { ctrlKey: true })).toBe('undo')
    expect(key('Z', { ctrlKey: true, shiftKey: true })).toBe('redo')
    expect(key('y', { metaKey: true })).toBe('redo')
    expect(key('s', { ctrlKey: true })).toBe('save')
    expect(key('S', { ctrlKey: true, shiftKey: true })).toBe('save-as')
    expect(key('o', { ctrlKey: true })).toBe('open')
    expect(key('n', { ctrlKey: true, altKey: true })).toBe('new')
    expect(key('n', { ctrlKey: true })).toBeNull()
    expect(key('c', { ctrlKey: true })).toBe('copy')
    expect(key('v', { ctrlKey: true })).toBe('paste')
    expect(key('x', { ctrlKey: true })).toBe('cut')
    expect(key('d', { ctrlKey: true })).toBe('duplicate')
    expect(key('a', { ctrlKey: true })).toBe('select-all')
    expect(key('Enter', { ctrlKey: true })).toBe('start')
    expect(key('Enter', { ctrlKey: true, shiftKey: true })).toBe('stop')
    expect(key('0', { ctrlKey: true })).toBe('zoom-to-fit')
    expect(key('l', { ctrlKey: true })).toBe('auto-layout')
    expect(key('e', { ctrlKey: true })).toBe('export')
  })
  it('maps single keys for canvas actions', () => {
    expect(key('Delete')).toBe('delete')
    expect(key('Backspace')).toBe('delete')
    expect(key('Escape')).toBe('deselect')
    expect(key('n')).toBe('add-node-menu')
    expect(key('r')).toBe('add-room')
    expect(key('L', { shiftKey: true })).toBe('auto-layout')
    expect(key('!', { shiftKey: true })).toBe('zoom-to-fit')
    expect(key('?', { shiftKey: true })).toBe('shortcuts')
    expect(key('n', { altKey: true })).toBeNull()
    expect(key('q')).toBeNull()
  })
  it('documents a shortcut for every command that has one', () => {
    for (const [id, info] of Object.entries(COMMANDS)) expect(info.label, id).toBeTruthy()
  })
})

describe('menu commands', () => {
  it('runs a command once when the page and the Electron menu both see the accelerator', () => {
    const tick = () => useUiStore.getState().fitRequest.tick
    const start = tick()
    runMenuCommand('zoom-to-fit', 'keyboard')
    runMenuCommand('zoom-to-fit', 'menu')
    expect(tick()).toBe(start + 1)
  })
})

describe('Edit menu commands', () => {
  // The main process already ran the native edit on a focused text field; the canvas stays put.
  class FakeElement {
    isContentEditable = false
    constructor(readonly tagName: string) {}
  }

  afterEach(() => vi.unstubAllGlobals())

  function focus(tagName: string | null): void {
    vi.stubGlobal('HTMLElement', FakeElement)
    vi.stubGlobal('document', { activeElement: tagName ? new FakeElement(tagName) : null })
  }

  it('undoes on the canvas when no text field has focus', () => {
    useEditorStore.getState().load(topologySchema.parse(twoRoomsJson), { path: null })
    useEditorStore.getState().addRoom()
    const rooms = () => useEditorStore.getState().history.present.rooms.length
    expect(rooms()).toBe(3)
    focus('DIV')
    runMenuCommand('undo', 'menu')
    expect(rooms()).toBe(2)
  })

  it('leaves the canvas alone while a text field has focus', () => {
    useEditorStore.getState().load(topologySchema.parse(twoRoomsJson), { path: null })
    useEditorStore.getState().addRoom()
    const rooms = () => useEditorStore.getState().history.present.rooms.length
    focus('INPUT')
    runMenuCommand('undo', 'menu')
    expect(rooms()).toBe(3)
  })
})
