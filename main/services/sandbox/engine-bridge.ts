import type { EngineEvents } from '../engine/events'
import type { Sandbox } from './sandbox'

/** Forwards sandbox events onto the engine bus (contract channels sandbox:node-state/progress/status). */
export function forwardSandboxEvents(sandbox: Sandbox, events: EngineEvents): () => void {
  const offState = sandbox.on('node-state', (status) => {
    events.emit('sandbox:node-state', status)
    events.emit('sandbox:status', sandbox.status())
  })
  const offProgress = sandbox.on('progress', (p) => events.emit('sandbox:progress', p))
  const offNetwork = sandbox.on('network', (n) => events.emit('sandbox:network', n))
  return () => {
    offState()
    offProgress()
    offNetwork()
  }
}
