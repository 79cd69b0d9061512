import { Loader2 } from 'lucide-react'
import { memo, useId } from 'react'
import type { ConnectForm, RoomsChoice } from '../stores/connect-store'
import { useConnectStore } from '../stores/connect-store'
import { Dialog } from './dialog'

const ROOM_CHOICES: { value: RoomsChoice; label: string; hint: string }[] = [
  {
    value: 'auto',
    label: 'Automatic',
    hint: 'By zone when every broker has one (ROCKETMQ_ZONE); otherwise use a map or a pattern.'
  },
  {
    value: 'zone',
    label: 'By zone (ROCKETMQ_ZONE)',
    hint: 'Each broker set in the room of its zone.'
  },
  { value: 'map', label: 'By room map', hint: 'Every broker and name server from the Room map.' },
  {
    value: 'regex',
    label: 'By broker-name pattern',
    hint: 'The first capture group of a broker name is its room, e.g. ^(room\\d+)-'
  }
]

function TextInput({
  label,
  field,
  placeholder,
  hint,
  mono = true
}: {
  label: string
  field: keyof ConnectForm
  placeholder?: string
  hint?: string
  mono?: boolean
}) {
  const id = useId()
  const value = useConnectStore((s) => s.form[field]) as string
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className={`input${mono ? ' mono' : ''}`}
        value={value}
        placeholder={placeholder}
        spellCheck={false}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => useConnectStore.getState().setField(field, e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void useConnectStore.getState().discover()
        }}
      />
      {hint && (
        <div id={`${id}-hint`} className="field-hint">
          {hint}
        </div>
      )}
    </div>
  )
}

function Check({
  label,
  field,
  hint,
  disabled
}: {
  label: string
  field: 'clients' | 'createTopic'
  hint: string
  disabled?: boolean
}) {
  const id = useId()
  const checked = useConnectStore((s) => s.form[field])
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked && !disabled}
        disabled={disabled}
        aria-describedby={`${id}-hint`}
        onChange={(e) => useConnectStore.getState().setField(field, e.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
      <div id={`${id}-hint`} className="field-hint">
        {hint}
      </div>
    </div>
  )
}

function RoomsField() {
  const id = useId()
  const rooms = useConnectStore((s) => s.form.rooms)
  const mapValue = useConnectStore((s) => s.form.roomMap)
  const hint = ROOM_CHOICES.find((c) => c.value === rooms)?.hint
  return (
    <>
      <div className="field">
        <label className="field-label" htmlFor={id}>
          Rooms
        </label>
        <select
          id={id}
          className="input"
          value={rooms}
          aria-describedby={`${id}-hint`}
          onChange={(e) =>
            useConnectStore.getState().setField('rooms', e.target.value as RoomsChoice)
          }
        >
          {ROOM_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        <div id={`${id}-hint`} className="field-hint">
          {hint}
        </div>
      </div>
      {rooms === 'regex' && (
        <TextInput label="Broker-name pattern" field="brokerPattern" placeholder="^(room\d+)-" />
      )}
      <div className="field">
        <label className="field-label" htmlFor={`${id}-map`}>
          Room map
        </label>
        <textarea
          id={`${id}-map`}
          className="input mono connect-map"
          rows={4}
          value={mapValue}
          spellCheck={false}
          placeholder={'broker-a: room1\n10.0.0.1:9876: room1\n10.2.0.0/16: room2'}
          aria-describedby={`${id}-map-hint`}
          onChange={(e) => useConnectStore.getState().setField('roomMap', e.target.value)}
        />
        <div id={`${id}-map-hint`} className="field-hint">
          YAML or JSON: broker name, host, host:port or IPv4 subnet → room. Name servers carry no
          zone, so list them here unless they share a host with one room&apos;s brokers.
        </div>
      </div>
      <TextInput
        label="Name-server host pattern"
        field="namesrvPattern"
        placeholder="^ns-(room\d+)\."
        hint="Optional: the first capture group of a name server's host is its room."
      />
    </>
  )
}

function Outcome() {
  const result = useConnectStore((s) => s.result)
  const progress = useConnectStore((s) => s.progress)
  const busy = useConnectStore((s) => s.busy)
  const error = useConnectStore((s) => s.error)
  return (
    <>
      {progress.length > 0 && (
        <ol className="connect-progress" aria-label="Discovery progress" aria-live="polite">
          {progress.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
          {busy && (
            <li>
              <Loader2 size={12} className="spin" aria-hidden="true" /> working…
            </li>
          )}
        </ol>
      )}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {result && !result.ok && (
        <section aria-label="Discovery problems" className="connect-problems">
          <p role="alert">
            {result.problems.length} problem{result.problems.length === 1 ? '' : 's'}: nothing is
            guessed, so nothing was opened. Fix these and connect again.
          </p>
          <ul>
            {result.problems.map((p, i) => (
              <li key={i}>
                <strong>{p.subject}</strong>: {p.message}
                <div className="field-hint">Fix: {p.fix}</div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  )
}

/** File › Connect to cluster…: reads a running cluster into an untitled topology of attached nodes. */
export const ConnectDialog = memo(function ConnectDialog() {
  const open = useConnectStore((s) => s.open)
  const busy = useConnectStore((s) => s.busy)
  const hasTopic = useConnectStore((s) => s.form.topic.trim() !== '')
  const id = useId()
  if (!open) return null
  const store = useConnectStore.getState()
  const close = () => store.setOpen(false)
  return (
    <Dialog
      title="Connect to cluster"
      wide
      onClose={close}
      describedBy={`${id}-desc`}
      initialFocus="input"
      footer={
        <>
          <button type="button" className="btn" onClick={close} disabled={busy}>
            Cancel
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => void store.discover()}
          >
            {busy && <Loader2 size={14} className="spin" aria-hidden="true" />}
            Connect
          </button>
        </>
      }
    >
      <p id={`${id}-desc`} className="dialog-text">
        Reads your cluster from its name servers (brokers, addresses, zones, topics) and opens it as
        a topology in which every node is attached: DR Studio never starts, stops or changes them,
        and creates nothing on your cluster unless you tick the box below.
      </p>
      <TextInput
        label="Name servers"
        field="namesrv"
        placeholder="10.0.0.1:9876;10.0.0.2:9876"
        hint="host:port;host:port, as in namesrvAddr"
      />
      <TextInput
        label="Address server (optional)"
        field="addressServer"
        placeholder="http://10.0.0.9:8080/rocketmq/nsaddr"
      />
      <RoomsField />
      <TextInput
        label="Topic for the workload (optional)"
        field="topic"
        placeholder="an existing topic, e.g. payments"
        hint="Checked now: it must have queues in every room. The workload uses a consumer group of its own."
      />
      <Check
        label="Add one producer and one consumer per room"
        field="clients"
        disabled={!hasTopic}
        hint="On the topic above, at 5 msg/s per producer."
      />
      <Check
        label="Let DR Studio create the topic"
        field="createTopic"
        disabled={!hasTopic}
        hint="Off: DR Studio never creates, changes or deletes topics or groups on your cluster."
      />
      <Outcome />
    </Dialog>
  )
})
