import { describe, expect, it } from 'vitest'
import twoRoomsJson from '../../../resources/topologies/two-rooms.json'
import type { Topology } from '../../../common/topology'
import { topologySchema } from '../../../common/topology'
import { documentProblems, problemTarget, problemsById } from './problems'

const doc = (): Topology => topologySchema.parse(twoRoomsJson)

describe('problems', () => {
  it('reports nothing for the shipped topology', () => {
    expect(documentProblems(doc())).toEqual([])
  })
  it('maps semantic problems to their node and field', () => {
    const d = doc()
    d.rooms[0]!.brokers[0]!.brokerId = 3
    const problems = documentProblems(d)
    expect(problems.map((p) => p.code)).toEqual(['master-broker-id'])
    expect(problemTarget(d, problems[0]!)).toEqual({ id: 'broker-1', field: 'brokerId' })
  })
  it('resolves schema problems (JSON path only) to the node, and room-level paths to the room', () => {
    const d = doc() as unknown as { rooms: { id: string; brokers: { port?: unknown }[] }[] }
    d.rooms[1]!.brokers[0]!.port = 'x'
    const problems = documentProblems(d as unknown as Topology)
    expect(problems[0]!.code).toBe('schema')
    expect(problemTarget(d as unknown as Topology, problems[0]!)).toEqual({
      id: 'broker-2',
      field: 'port'
    })
    expect(
      problemTarget(doc(), { code: 'c', path: '$.rooms[1].id', message: '', hint: '' })
    ).toEqual({ id: 'room2', field: 'id' })
    expect(problemTarget(doc(), { code: 'c', path: '$.rooms', message: '', hint: '' })).toEqual({})
  })
  it('groups problems by id', () => {
    const d = doc()
    d.rooms[1]!.brokers[0]!.id = 'broker-1'
    const index = problemsById(d, documentProblems(d))
    expect(index.get('broker-1')?.[0]).toMatchObject({
      field: 'id',
      problem: { code: 'duplicate-id' }
    })
  })
})
