import { Copy, Plus, Trash2, X } from 'lucide-react'
import type { ReactNode } from 'react'
import type { Problem, RoomSpec, Topology, TopologyNode } from '../../../common/topology'
import { CLIENT_LANES, LANE_TRAITS, idSchema } from '../../../common/topology'
import { CheckboxField, SelectField, TextField, parseOptionalNumber } from '../components/fields'
import { KindIcon } from '../canvas/kind-icon'
import { KIND_LABEL, allIds, findRoom, nodeById } from '../model/document'
import { selectDoc, useEditorStore } from '../stores/editor-store'
import { useRunStore } from '../stores/run-store'

type FieldErrors = Map<string, string>
const EMPTY: { problem: Problem; field?: string }[] = []

function useProblems(id: string | undefined) {
  return useEditorStore((s) => (id ? (s.problemIndex.get(id) ?? EMPTY) : EMPTY))
}

function splitErrors(list: { problem: Problem; field?: string }[], shown: string[]) {
  const fields: FieldErrors = new Map()
  const general: Problem[] = []
  for (const { problem, field } of list) {
    if (field && shown.includes(field) && !fields.has(field)) fields.set(field, problem.message)
    else general.push(problem)
  }
  return { fields, general }
}

function GeneralProblems({ problems }: { problems: Problem[] }) {
  if (!problems.length) return null
  return (
    <ul className="prop-problems" aria-label="Problems of this item">
      {problems.map((p, i) => (
        <li key={i}>
          {p.message}
          <span className="prop-problem-hint">fix: {p.hint}</span>
        </li>
      ))}
    </ul>
  )
}

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v)
}

function idError(doc: Topology, current: string, next: string): string | undefined {
  if (next === current) return undefined
  const parsed = idSchema.safeParse(next)
  if (!parsed.success) return parsed.error.issues[0]?.message ?? 'invalid id'
  if (allIds(doc).has(next)) return `"${next}" is already used`
  return undefined
}

function IdField({ doc, id, error }: { doc: Topology; id: string; error?: string | undefined }) {
  return (
    <TextField
      label="Id"
      value={id}
      mono
      error={error}
      hint="Renaming updates layout and room references"
      onCommit={(next) => {
        const err = idError(doc, id, next.trim())
        if (err) return err
        useEditorStore.getState().rename(id, next.trim())
        return undefined
      }}
    />
  )
}

function Section({
  title,
  children,
  icon
}: {
  title: string
  children: ReactNode
  icon?: ReactNode
}) {
  return (
    <section className="props" aria-label={`Properties: ${title}`}>
      <h2 className="panel-title">
        {icon}
        {title}
      </h2>
      {children}
    </section>
  )
}

const update = (nodeId: string, patch: Record<string, unknown>) =>
  useEditorStore.getState().dispatch({ type: 'update-node', nodeId, patch })

function textProp(
  node: TopologyNode,
  key: string,
  label: string,
  errors: FieldErrors,
  opts: { optional?: boolean; hint?: string; mono?: boolean } = {}
) {
  const spec = node.spec as Record<string, unknown>
  return (
    <TextField
      key={key}
      label={label}
      value={str(spec[key])}
      error={errors.get(key)}
      {...(opts.hint ? { hint: opts.hint } : {})}
      {...(opts.mono ? { mono: true } : {})}
      onCommit={(v) => {
        update(node.id, { [key]: opts.optional && !v.trim() ? undefined : v.trim() })
      }}
    />
  )
}

function numberProp(
  node: TopologyNode,
  key: string,
  label: string,
  errors: FieldErrors,
  hint?: string
) {
  const spec = node.spec as Record<string, unknown>
  return (
    <TextField
      key={key}
      label={label}
      type="number"
      mono
      value={str(spec[key])}
      error={errors.get(key)}
      {...(hint ? { hint } : {})}
      onCommit={(v) => {
        const parsed = parseOptionalNumber(v)
        if (!parsed.ok) return parsed.error
        update(node.id, { [key]: parsed.value })
        return undefined
      }}
    />
  )
}

const LANES = CLIENT_LANES.map((v) => ({ value: v, label: LANE_TRAITS[v].label }))

function NodeProperties({ doc, node }: { doc: Topology; node: TopologyNode }) {
  const problems = useProblems(node.id)
  const status = useRunStore((s) => s.nodes[node.id])
  const shown = [
    'id',
    'host',
    'port',
    'remotingPort',
    'cluster',
    'brokerName',
    'role',
    'brokerId',
    'replication',
    'storePath',
    'topic',
    'group',
    'rate',
    'messageSize',
    'lane',
    'fallbackRooms'
  ]
  const { fields, general } = splitErrors(problems, shown)
  const spec = node.spec as Record<string, unknown>
  const endpoint = [
    textProp(node, 'host', 'Host', fields, {
      optional: true,
      hint: 'With a port: attach to a running process',
      mono: true
    }),
    numberProp(
      node,
      'port',
      node.kind === 'proxy' ? 'gRPC port' : 'Port',
      fields,
      'Empty: the sandbox allocates one'
    )
  ]
  let body: ReactNode
  switch (node.kind) {
    case 'broker':
      body = (
        <>
          {textProp(node, 'cluster', 'Cluster', fields)}
          {textProp(node, 'brokerName', 'Broker name', fields, {
            hint: 'Master and slaves share it'
          })}
          <SelectField
            label="Role"
            value={str(spec.role)}
            options={[
              { value: 'master', label: 'master' },
              { value: 'slave', label: 'slave' }
            ]}
            error={fields.get('role')}
            onChange={(role) => update(node.id, { role })}
          />
          {numberProp(node, 'brokerId', 'Broker id', fields, '0 for a master, 1+ for slaves')}
          {spec.role === 'master' && (
            <SelectField
              label="Replication"
              value={str(spec.replication) || 'async'}
              options={[
                { value: 'async', label: 'asynchronous (ASYNC_MASTER)' },
                { value: 'sync', label: 'synchronous (SYNC_MASTER)' }
              ]}
              hint="Synchronous: a write waits for a slave; without one in time it is stored with FLUSH_SLAVE_TIMEOUT"
              error={fields.get('replication')}
              onChange={(v) => update(node.id, { replication: v === 'sync' ? 'sync' : undefined })}
            />
          )}
          {textProp(node, 'storePath', 'Store path', fields, { optional: true, mono: true })}
          {endpoint}
        </>
      )
      break
    case 'proxy':
      body = (
        <>
          {endpoint}
          {numberProp(node, 'remotingPort', 'Remoting port', fields)}
        </>
      )
      break
    case 'producer':
    case 'consumer':
      body = (
        <>
          {textProp(node, 'topic', 'Topic', fields)}
          {textProp(node, 'group', 'Group', fields)}
          {node.kind === 'producer' && numberProp(node, 'rate', 'Rate (msg/s)', fields)}
          {node.kind === 'producer' &&
            numberProp(node, 'messageSize', 'Message size (bytes)', fields)}
          <SelectField
            label="Lane"
            value={str(spec.lane)}
            options={LANES}
            error={fields.get('lane')}
            onChange={(lane) => update(node.id, { lane })}
          />
          <TextField
            label="Fallback rooms"
            mono
            value={
              Array.isArray(spec.fallbackRooms) ? (spec.fallbackRooms as string[]).join(', ') : ''
            }
            placeholder="e.g. room2, room3"
            hint="Rooms to try in order when its own room has nothing available"
            error={fields.get('fallbackRooms')}
            onCommit={(v) => {
              const list = v.split(/[\s,]+/).filter(Boolean)
              update(node.id, { fallbackRooms: list.length ? list : undefined })
            }}
          />
        </>
      )
      break
    case 'nameserver':
    case 'management':
      body = endpoint
  }
  return (
    <Section title={`${KIND_LABEL[node.kind]} ${node.id}`} icon={<KindIcon kind={node.kind} />}>
      <GeneralProblems problems={general} />
      <IdField doc={doc} id={node.id} error={fields.get('id')} />
      <SelectField
        label="Room"
        value={node.room}
        options={doc.rooms.map((r) => ({
          value: r.id,
          label: r.name && r.name !== r.id ? `${r.name} (${r.id})` : r.id
        }))}
        hint="Moves the node to another room"
        onChange={(roomId) =>
          useEditorStore.getState().dispatch({ type: 'move-node-to-room', nodeId: node.id, roomId })
        }
      />
      {body}
      {status && (
        <dl className="prop-status" aria-label="Run status">
          <dt>State</dt>
          <dd>{status.state}</dd>
          {status.address && (
            <>
              <dt>Address</dt>
              <dd className="mono">{status.address}</dd>
            </>
          )}
          {status.pid !== undefined && (
            <>
              <dt>PID</dt>
              <dd className="mono">{status.pid}</dd>
            </>
          )}
          {status.detail && (
            <>
              <dt>Detail</dt>
              <dd>{status.detail}</dd>
            </>
          )}
        </dl>
      )}
    </Section>
  )
}

function RoomProperties({ doc, room }: { doc: Topology; room: RoomSpec }) {
  const problems = useProblems(room.id)
  const { fields, general } = splitErrors(problems, ['id', 'name'])
  return (
    <Section title={`Room ${room.id}`}>
      <GeneralProblems problems={general} />
      <IdField doc={doc} id={room.id} error={fields.get('id')} />
      <TextField
        label="Display name"
        value={room.name ?? ''}
        error={fields.get('name')}
        onCommit={(v) =>
          void useEditorStore.getState().dispatch({
            type: 'update-room',
            roomId: room.id,
            patch: { name: v.trim() || undefined }
          })
        }
      />
    </Section>
  )
}

function TopologyProperties({ doc }: { doc: Topology }) {
  const problems = useEditorStore((s) => s.problems)
  const docLevel = problems.filter((p) =>
    /^\$\.(name|description|settings|topics|kind|version)/.test(p.path)
  )
  const errorAt = (prefix: string) => docLevel.find((p) => p.path.startsWith(prefix))?.message
  const set = (patch: Parameters<typeof setTopology>[0]) => setTopology(patch)
  const s = doc.settings
  const num = (key: 'probeIntervalMs' | 'probeTimeoutMs' | 'routeRefreshMs', label: string) => (
    <TextField
      label={label}
      type="number"
      mono
      value={str(s[key])}
      error={errorAt(`$.settings.${key}`)}
      onCommit={(v) => {
        const parsed = parseOptionalNumber(v)
        if (!parsed.ok) return parsed.error
        set({ settings: { [key]: parsed.value } })
        return undefined
      }}
    />
  )
  return (
    <Section title="Topology">
      <TextField
        label="Name"
        value={doc.name}
        error={errorAt('$.name')}
        onCommit={(v) => set({ name: v.trim() })}
      />
      <TextField
        label="Description"
        value={doc.description ?? ''}
        onCommit={(v) => set({ description: v.trim() || undefined })}
      />
      <SelectField
        label="Name server discovery"
        value={s.namesrvDiscovery}
        options={[
          { value: 'management', label: 'management node (claim 6)' },
          { value: 'static', label: 'static list' }
        ]}
        onChange={(v) => set({ settings: { namesrvDiscovery: v as 'management' | 'static' } })}
      />
      <SelectField
        label="Selection policy"
        value={s.selectionPolicy}
        options={['random', 'round-robin', 'least-latency'].map((v) => ({ value: v, label: v }))}
        onChange={(v) => set({ settings: { selectionPolicy: v as typeof s.selectionPolicy } })}
      />
      {num('probeIntervalMs', 'Probe interval (ms)')}
      {num('probeTimeoutMs', 'Probe timeout (ms)')}
      {num('routeRefreshMs', 'Route refresh (ms)')}
      <CheckboxField
        label="RocketMQ zone mode"
        checked={s.zoneMode}
        hint="Server-side zone filter without fallback"
        onChange={(zoneMode) => set({ settings: { zoneMode } })}
      />
      <SelectField
        label="Messages (live runs)"
        value={s.messages}
        options={[
          { value: 'normal', label: 'normal' },
          { value: 'ordered', label: 'ordered (16 keys, consumed orderly)' },
          { value: 'delayed', label: 'delayed (5 s, broker timer)' },
          {
            value: 'transactional',
            label: 'transactional (80 % commit, 20 % by check-back)'
          }
        ]}
        hint="What producers send after Start; a scenario sets its own"
        onChange={(v) => set({ settings: { messages: v as typeof s.messages } })}
      />
      {s.messages === 'ordered' && (
        <SelectField
          label="Order policy (remoting, java-dr)"
          value={s.orderPolicy}
          options={[
            { value: 'wait', label: 'wait: keep order, fail sends while a key’s queue is down' },
            { value: 'reroute', label: 'reroute: keep sending, a key’s order may break' }
          ]}
          hint={
            s.orderPolicy === 'wait'
              ? 'Costs availability: a key whose broker is down is not sent until it is back'
              : 'Costs order: a key sent to another queue can be consumed out of sequence'
          }
          onChange={(v) => set({ settings: { orderPolicy: v as typeof s.orderPolicy } })}
        />
      )}
      <TextField
        label="Cross-room price per GiB"
        type="number"
        mono
        value={str(s.pricePerGb)}
        placeholder="none"
        hint="Your transfer price between zones or regions: reports show cross-room traffic as a cost per hour"
        error={errorAt('$.settings.pricePerGb')}
        onCommit={(v) => {
          const parsed = parseOptionalNumber(v)
          if (!parsed.ok) return parsed.error
          set({ settings: { pricePerGb: parsed.value } })
          return undefined
        }}
      />
      <TopicsEditor doc={doc} errorAt={errorAt} />
    </Section>
  )
}

function setTopology(
  patch: Extract<
    Parameters<ReturnType<typeof useEditorStore.getState>['dispatch']>[0],
    { type: 'update-topology' }
  >['patch']
) {
  useEditorStore.getState().dispatch({ type: 'update-topology', patch })
}

function TopicsEditor({
  doc,
  errorAt
}: {
  doc: Topology
  errorAt: (prefix: string) => string | undefined
}) {
  const topics = doc.topics
  const put = (next: typeof topics) => setTopology({ topics: next })
  return (
    <fieldset className="topics">
      <legend>Topics</legend>
      {topics.map((t, i) => (
        <div className="topic-row" key={i}>
          <TextField
            label={`Topic ${i + 1} name`}
            mono
            value={t.name}
            error={errorAt(`$.topics[${i}].name`)}
            onCommit={(v) => put(topics.map((x, j) => (j === i ? { ...x, name: v.trim() } : x)))}
          />
          <TextField
            label="Queues"
            type="number"
            mono
            value={str(t.queues)}
            error={errorAt(`$.topics[${i}].queues`)}
            onCommit={(v) => {
              const parsed = parseOptionalNumber(v)
              if (!parsed.ok || parsed.value === undefined) return 'enter a number'
              put(topics.map((x, j) => (j === i ? { ...x, queues: parsed.value! } : x)))
              return undefined
            }}
          />
          <button
            type="button"
            className="icon-btn"
            aria-label={`Remove topic ${t.name}`}
            onClick={() => put(topics.filter((_, j) => j !== i))}
          >
            <X size={14} aria-hidden="true" />
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          const names = new Set(topics.map((t) => t.name))
          let name = 'topic-1'
          for (let i = 2; names.has(name); i++) name = `topic-${i}`
          put([...topics, { name, queues: 4 }])
        }}
      >
        <Plus size={14} aria-hidden="true" /> Add topic
      </button>
    </fieldset>
  )
}

function MultiProperties({ count }: { count: number }) {
  const editor = useEditorStore.getState()
  return (
    <Section title={`${count} items selected`}>
      <div className="prop-actions">
        <button type="button" className="btn" onClick={() => editor.copySelection()}>
          <Copy size={14} aria-hidden="true" /> Copy selection
        </button>
        <button type="button" className="btn btn-danger" onClick={() => editor.deleteSelection()}>
          <Trash2 size={14} aria-hidden="true" /> Delete selection
        </button>
      </div>
    </Section>
  )
}

/** Right sidebar: a form for the selected item (or the topology), with inline validation. */
export function PropertiesPanel() {
  const doc = useEditorStore(selectDoc)
  const selection = useEditorStore((s) => s.selection)
  let body: ReactNode
  if (selection.length > 1) body = <MultiProperties count={selection.length} />
  else if (selection.length === 1) {
    const id = selection[0]!
    const room = findRoom(doc, id)
    const node = room ? undefined : nodeById(doc, id)
    if (room) body = <RoomProperties key={id} doc={doc} room={room} />
    else if (node) body = <NodeProperties key={id} doc={doc} node={node} />
  }
  return (
    <aside className="properties" aria-label="Properties">
      {body ?? <TopologyProperties doc={doc} />}
    </aside>
  )
}
