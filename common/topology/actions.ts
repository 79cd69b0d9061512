import { isAttached, listNodes, type TopologyNode } from './model'
import type { NodeActions, OperatorAction, RoomSpec, Topology } from './schema'
import { OPERATOR_ACTIONS } from './schema'

/** The placeholders an action command may use; every value is shell-quoted when rendered. */
export const ACTION_PLACEHOLDERS = ['host', 'port', 'id', 'room'] as const
export type ActionPlaceholder = (typeof ACTION_PLACEHOLDERS)[number]

/** Actions that take a node away or disturb it; the first one in a session asks for confirmation. */
export const DESTRUCTIVE_ACTIONS: ReadonlySet<OperatorAction> = new Set([
  'kill',
  'pause',
  'restart',
  'stop'
])

export type TemplatePart = { text: string } | { placeholder: ActionPlaceholder }

/** A problem in one command template; `index` is the offset of the offending brace. */
export interface TemplateError {
  index: number
  message: string
}

/**
 * Splits a command template into text and placeholders. Every `{` opens a placeholder unless it is
 * doubled, so a shell `${VAR}` or awk `{print}` must be written `${{VAR}}` / `{{print}}`: an
 * unknown name is an error rather than a command that silently runs with a hole in it.
 */
export function parseTemplate(
  template: string
): { ok: true; parts: TemplatePart[] } | { ok: false; error: TemplateError } {
  const parts: TemplatePart[] = []
  let text = ''
  let i = 0
  while (i < template.length) {
    const c = template[i]!
    const next = template[i + 1]
    if (c === '{' && next === '{') {
      text += '{'
      i += 2
    } else if (c === '}' && next === '}') {
      text += '}'
      i += 2
    } else if (c === '}') {
      return {
        ok: false,
        error: { index: i, message: 'a lone "}" (write "}}" for a literal brace)' }
      }
    } else if (c === '{') {
      const end = template.indexOf('}', i + 1)
      if (end < 0) {
        return {
          ok: false,
          error: { index: i, message: 'a "{" without its "}" (write "{{" for a literal brace)' }
        }
      }
      const name = template.slice(i + 1, end)
      if (!(ACTION_PLACEHOLDERS as readonly string[]).includes(name)) {
        return {
          ok: false,
          error: {
            index: i,
            message: `unknown placeholder {${name}} (known: ${ACTION_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}; write {{ and }} for literal braces)`
          }
        }
      }
      if (text) parts.push({ text })
      text = ''
      parts.push({ placeholder: name as ActionPlaceholder })
      i = end + 1
    } else {
      text += c
      i++
    }
  }
  if (text) parts.push({ text })
  return { ok: true, parts }
}

/** POSIX shell quoting: safe words stay as they are, anything else goes in single quotes. */
export function shellQuote(value: string): string {
  if (value !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value
  return `'${value.replace(/'/g, `'\\''`)}'`
}

/** Renders a template with shell-quoted values; throws the template error (validation catches it first). */
export function renderTemplate(
  template: string,
  values: Record<ActionPlaceholder, string>
): string {
  const parsed = parseTemplate(template)
  if (!parsed.ok)
    throw new Error(`action command ${JSON.stringify(template)}: ${parsed.error.message}`)
  return parsed.parts
    .map((p) => ('text' in p ? p.text : shellQuote(values[p.placeholder])))
    .join('')
}

/** Where a node's command for one action comes from, with the JSON path to show in errors. */
export interface ResolvedAction {
  action: OperatorAction
  template: string
  path: string
  from: 'node' | 'room'
}

type ServerNode = Exclude<TopologyNode, { kind: 'producer' | 'consumer' }>

function roomKindActions(room: RoomSpec | undefined, kind: ServerNode['kind']): NodeActions {
  return room?.actions?.[kind] ?? {}
}

/**
 * The operator commands of one attached node, node-level first, then the room's per-kind ones.
 * Sandbox nodes and clients have none: DR Studio faults those itself.
 */
export function resolveNodeActions(topology: Topology, nodeId: string): ResolvedAction[] {
  const nodes = listNodes(topology)
  const node = nodes.find((n) => n.id === nodeId)
  if (!node || node.kind === 'producer' || node.kind === 'consumer' || !isAttached(node)) return []
  const roomIndex = topology.rooms.findIndex((r) => r.id === node.room)
  const room = topology.rooms[roomIndex]
  const own = node.spec.actions ?? {}
  const shared = roomKindActions(room, node.kind)
  const out: ResolvedAction[] = []
  for (const action of OPERATOR_ACTIONS) {
    const mine = own[action]
    if (mine !== undefined) {
      out.push({ action, template: mine, path: `${node.path}.actions.${action}`, from: 'node' })
    } else if (shared[action] !== undefined) {
      out.push({
        action,
        template: shared[action],
        path: `$.rooms[${roomIndex}].actions.${node.kind}.${action}`,
        from: 'room'
      })
    }
  }
  return out
}

/** The actions a node's menu offers: exactly those with a command, in menu order. */
export function offeredActions(topology: Topology, nodeId: string): OperatorAction[] {
  return resolveNodeActions(topology, nodeId).map((a) => a.action)
}

/** Placeholder values of one attached node. */
export function placeholderValues(node: ServerNode): Record<ActionPlaceholder, string> {
  return {
    host: node.spec.host ?? '',
    port: node.spec.port === undefined ? '' : String(node.spec.port),
    id: node.id,
    room: node.room
  }
}

/** The shell command for one action on one node, or undefined when the node has none for it. */
export function renderNodeAction(
  topology: Topology,
  nodeId: string,
  action: OperatorAction
): { command: string; template: string; path: string } | undefined {
  const resolved = resolveNodeActions(topology, nodeId).find((a) => a.action === action)
  if (!resolved) return undefined
  const node = listNodes(topology).find((n) => n.id === nodeId) as ServerNode
  return {
    command: renderTemplate(resolved.template, placeholderValues(node)),
    template: resolved.template,
    path: resolved.path
  }
}

/** Same shape as validate.ts's Problem (kept structural to avoid an import cycle). */
interface ActionProblem {
  code: string
  path: string
  message: string
  hint: string
  nodeId?: string
}

function templateProblems(
  actions: NodeActions | undefined,
  basePath: string,
  owner: string,
  nodeId?: string
): ActionProblem[] {
  const problems: ActionProblem[] = []
  for (const action of OPERATOR_ACTIONS) {
    const template = actions?.[action]
    if (template === undefined) continue
    const parsed = parseTemplate(template)
    if (parsed.ok) continue
    problems.push({
      code: 'action-template',
      path: `${basePath}.${action}`,
      ...(nodeId ? { nodeId } : {}),
      message: `the ${action} command of ${owner} has ${parsed.error.message} at character ${parsed.error.index + 1}`,
      hint: `use only ${ACTION_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}; write {{ and }} for literal braces`
    })
  }
  return problems
}

/** Action commands that cannot run: bad placeholders, or commands on nodes DR Studio starts itself. */
export function actionProblems(topology: Topology): ActionProblem[] {
  const problems: ActionProblem[] = []
  topology.rooms.forEach((room, r) => {
    for (const kind of ['nameserver', 'broker', 'management', 'proxy'] as const) {
      problems.push(
        ...templateProblems(
          room.actions?.[kind],
          `$.rooms[${r}].actions.${kind}`,
          `room "${room.id}"'s ${kind}s`
        )
      )
    }
  })
  for (const node of listNodes(topology)) {
    if (node.kind === 'producer' || node.kind === 'consumer' || !node.spec.actions) continue
    const path = `${node.path}.actions`
    if (!isAttached(node)) {
      problems.push({
        code: 'action-not-attached',
        path,
        nodeId: node.id,
        message: `"${node.id}" has operator actions but DR Studio starts it itself (no host and port)`,
        hint: 'give the node the host and port of the server you run, or remove its actions'
      })
    }
    problems.push(...templateProblems(node.spec.actions, path, `"${node.id}"`, node.id))
  }
  return problems
}

const SERVICE: Record<'nameserver' | 'broker' | 'proxy' | 'controller' | 'management', string> = {
  nameserver: 'rmq-namesrv',
  broker: 'rmq-broker',
  proxy: 'rmq-proxy',
  controller: 'rmq-controller',
  management: 'drstudio-mgmt'
}

/**
 * An example command for an action an attached node lacks, for the error that says how to add
 * one: systemd has no pause, so pause, resume and kill send the signal through `systemctl kill`.
 */
export function exampleActionCommand(kind: keyof typeof SERVICE, action: OperatorAction): string {
  const unit = SERVICE[kind]
  const signal = { kill: 'KILL', pause: 'STOP', resume: 'CONT' } as const
  return action === 'kill' || action === 'pause' || action === 'resume'
    ? `ssh {host} sudo systemctl kill -s ${signal[action]} ${unit}`
    : `ssh {host} sudo systemctl ${action} ${unit}`
}
