import { AlertCircle, CheckCircle2, Network, Plug, PlugZap } from 'lucide-react'
import { bridge } from '../lib/bridge'
import type { ConnectionState } from '../lib/ws-client'
import { useEditorStore } from '../stores/editor-store'
import { useNetworkStore } from '../stores/network-store'
import { useRunStore } from '../stores/run-store'
import { useUiStore } from '../stores/ui-store'

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  reconnecting: 'reconnecting…',
  unauthorized: 'access denied: open the URL printed by drstudio serve'
}

function RunSummary() {
  const running = useRunStore((s) => s.running)
  const runId = useRunStore((s) => s.runId)
  const counts = useRunStore((s) => {
    let up = 0
    let bad = 0
    let total = 0
    for (const st of Object.values(s.states)) {
      total++
      if (st === 'up' || st === 'attached') up++
      else if (st === 'killed' || st === 'down' || st === 'failed') bad++
    }
    return `${up}/${total}/${bad}`
  })
  const phase = useRunStore((s) => (s.phase && s.phase.runId === s.runId ? s.phase.phase : null))
  if (!running) return <span className="status-item">sandbox idle</span>
  const [up, total, bad] = counts.split('/')
  const text = `run ${runId ?? ''}: ${up}/${total} up${bad !== '0' ? `, ${bad} down` : ''}`
  // The phase says when traffic flows: the Timeline may have scrolled its row away by then.
  return (
    <span
      className="status-item"
      role="status"
      aria-label={`Run ${runId ?? ''}: ${up} of ${total} nodes up${bad !== '0' ? `, ${bad} down` : ''}${phase ? `, phase ${phase}` : ''}`}
    >
      {text}
      {phase ? ` · ${phase}` : ''}
    </span>
  )
}

/**
 * How the running sandbox placed its rooms: own networks, or loopback with network faults off and
 * the one line saying what is missing and how to grant it.
 */
function NetworkSummary() {
  const running = useRunStore((s) => s.running)
  const status = useNetworkStore((s) => s.status)
  if (!running || !status) return null
  const faults = status.faults.length
  const text =
    status.mode === 'namespaces'
      ? `rooms: own networks${faults ? `, ${faults} network fault${faults === 1 ? '' : 's'}` : ''}`
      : 'rooms: loopback, network faults off'
  const why = [status.faultsDisabled, status.notice].filter(Boolean).join('. ')
  return (
    <span
      className={`status-item status-network${status.mode === 'loopback' || status.notice ? ' warn' : ''}`}
      role="status"
      aria-label={`Network: ${text}${why ? `. ${why}` : ''}`}
      title={why || undefined}
    >
      <Network size={12} aria-hidden="true" />
      {text}
      {status.mode === 'loopback' && status.notice && (
        <span className="status-network-notice">{status.notice}</span>
      )}
    </span>
  )
}

/** Footer: transport, connection, problems count, run summary, rooms' networks. */
export function StatusBar() {
  const connection = useUiStore((s) => s.connection)
  const problems = useEditorStore((s) => s.problems.length)
  const nodes = useEditorStore((s) =>
    s.history.present.rooms.reduce(
      (n, r) =>
        n +
        (r.nameServers?.length ?? 0) +
        (r.brokers?.length ?? 0) +
        (r.managementNodes?.length ?? 0) +
        (r.proxies?.length ?? 0) +
        (r.producers?.length ?? 0) +
        (r.consumers?.length ?? 0),
      0
    )
  )
  const rooms = useEditorStore((s) => s.history.present.rooms.length)
  const transport = bridge.transport
  return (
    <footer className="statusbar">
      <span className="status-item" data-testid="transport">
        {connection === 'open' ? (
          <Plug size={12} aria-hidden="true" />
        ) : (
          <PlugZap size={12} aria-hidden="true" />
        )}
        transport: {transport}
      </span>
      {transport === 'browser' && (
        <span
          className={`status-item conn-${connection}`}
          role="status"
          aria-label={`Engine connection ${CONNECTION_TEXT[connection]}`}
        >
          {CONNECTION_TEXT[connection]}
        </span>
      )}
      <button
        type="button"
        className={`status-item status-problems${problems ? ' bad' : ''}`}
        aria-label={`${problems} problem${problems === 1 ? '' : 's'}`}
        onClick={() => document.querySelector<HTMLElement>('#problems-panel button')?.focus()}
      >
        {problems ? (
          <AlertCircle size={12} aria-hidden="true" />
        ) : (
          <CheckCircle2 size={12} aria-hidden="true" />
        )}
        {problems} problem{problems === 1 ? '' : 's'}
      </button>
      <span className="status-item">
        {rooms} room{rooms === 1 ? '' : 's'}, {nodes} node{nodes === 1 ? '' : 's'}
      </span>
      <RunSummary />
      <NetworkSummary />
    </footer>
  )
}
