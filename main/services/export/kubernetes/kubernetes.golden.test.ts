import { readFileSync } from 'node:fs'
import { describe, it } from 'vitest'
import { topologySchema } from '../../../../common/topology/schema'
import { expectGoldenDir } from '../golden-dir'
import { renderKubernetes } from './render-kubernetes'

const GOLDEN = 'test/golden/kubernetes'

describe('kubernetes export golden files', () => {
  for (const name of ['three-rooms', 'three-rooms-controller']) {
    it(`${name} matches ${GOLDEN}/${name}`, () => {
      const topology = topologySchema.parse(
        JSON.parse(readFileSync(`resources/topologies/${name}.json`, 'utf8'))
      )
      expectGoldenDir(`${GOLDEN}/${name}`, renderKubernetes(topology))
    })
  }
})
