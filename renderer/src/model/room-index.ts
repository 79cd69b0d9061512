import type { Topology } from '../../../common/topology'
import { listNodes } from '../../../common/topology'

const cache = new WeakMap<Topology, Map<string, string>>()

/** Node id → room id for a document, computed once per document object (events look it up often). */
export function roomIndex(doc: Topology): Map<string, string> {
  let map = cache.get(doc)
  if (!map) {
    map = new Map()
    for (const n of listNodes(doc)) if (!map.has(n.id)) map.set(n.id, n.room)
    cache.set(doc, map)
  }
  return map
}
