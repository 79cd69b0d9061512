import { describe, expect, it } from 'vitest'
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
