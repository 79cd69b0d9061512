import { describe, expect, it } from 'vitest'
import { batchesOf, laneEntriesOf, parseVary, sweepCombinations } from './sweep-plan'

describe('parseVary and sweepCombinations', () => {
  it('crosses lanes and client settings, values as a scenario writes them', () => {
    const combos = sweepCombinations(
      parseVary(['client.requestTimeout=200ms,800ms', 'lane=remoting,java-tuned']),
      'remoting'
    )
    expect(combos.map((c) => [c.name, c.label, c.lane, c.client])).toEqual([
      ['s1', 'requestTimeout=200ms lane=remoting', 'remoting', { requestTimeout: 200 }],
      ['s2', 'requestTimeout=200ms lane=java-tuned', 'java-tuned', { requestTimeout: 200 }],
      ['s3', 'requestTimeout=800ms lane=remoting', 'remoting', { requestTimeout: 800 }],
      ['s4', 'requestTimeout=800ms lane=java-tuned', 'java-tuned', { requestTimeout: 800 }]
    ])
    expect(sweepCombinations(parseVary(['client.hedge=true,false']), 'java')[1]).toMatchObject({
      lane: 'java',
      client: { hedge: false }
    })
    expect(laneEntriesOf(combos.slice(0, 1))).toEqual([
      { lane: 'remoting', name: 's1', client: { requestTimeout: 200 } }
    ])
    expect(batchesOf([1, 2, 3, 4, 5], 4)).toEqual([[1, 2, 3, 4], [5]])
  })

  it('names the flag and the fix for anything it cannot run', () => {
    const cases: [string[], RegExp][] = [
      [[], /name what to vary, e.g. --vary client.requestTimeout=200ms,400ms,800ms/],
      [['requestTimeout'], /--vary requestTimeout: write key=value,value/],
      [['client.requestTimeout=200ms'], /give two or more values/],
      [['client.requestTimeout=200ms,200ms'], /a value appears twice/],
      [
        ['client.requestTimeOut=1s,2s'],
        /no client setting "client.requestTimeOut"; vary lane or one of client.policy/
      ],
      [['client.hedge=yes,no'], /"yes" is not a value of client.hedge/],
      [['lane=remoting,jva'], /no lane "jva"; lanes: remoting/],
      [['lane=remoting,java', 'lane=java,grpc'], /lane is varied twice/]
    ]
    for (const [flags, message] of cases) expect(() => parseVary(flags)).toThrow(message)
    expect(() =>
      sweepCombinations(
        parseVary(['client.requestTimeout=1s,2s,3s,4s', 'client.probeInterval=1s,2s,3s,4s']),
        'remoting'
      )
    ).toThrow(/16 combinations is more than a sweep runs \(12\)/)
  })
})
