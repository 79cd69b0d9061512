import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runValidateCommand } from './validate-command'

const dir = mkdtempSync(join(tmpdir(), 'drstudio-validate-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function capture(): { write(s: string): boolean; text: string } {
  return {
    text: '',
    write(s: string) {
      this.text += s
      return true
    }
  }
}

describe('drstudio validate', () => {
  it('exits 0 for the default topology', () => {
    const out = capture()
    expect(runValidateCommand('resources/topologies/two-rooms.json', {}, out as never)).toBe(0)
    expect(out.text).toContain('valid topology "two-rooms"')
  })

  it('exits 1 naming both JSON paths for a duplicate id and a port collision', () => {
    const doc = JSON.parse(readFileSync('resources/topologies/two-rooms.json', 'utf8'))
    doc.rooms[1].brokers[0].id = 'broker-1'
    doc.rooms[0].nameServers[0].port = 9876
    doc.rooms[1].nameServers[0].port = 9876
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify(doc))
    const out = capture()
    expect(runValidateCommand(file, {}, out as never)).toBe(1)
    const lines = out.text.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toContain('$.rooms[1].brokers[0].id')
    expect(lines[1]).toContain('$.rooms[1].nameServers[0].port')
    const json = capture()
    expect(runValidateCommand(file, { json: true }, json as never)).toBe(1)
    expect(JSON.parse(json.text).problems.map((p: { code: string }) => p.code)).toEqual([
      'duplicate-id',
      'port-collision'
    ])
  })

  it('exits 1 with a clear message for a missing file', () => {
    const out = capture()
    expect(runValidateCommand(join(dir, 'nope.json'), {}, out as never)).toBe(1)
    expect(out.text).toMatch(/topology file not found: .*nope\.json/)
  })
})
