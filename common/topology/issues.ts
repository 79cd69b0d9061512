// Turns zod's issues into problems a person can act on: the JSON path, what the value is, what
// it should be and how to get there. Zod says "expected number, received string"; this says
// 'port is the string "9876"; write the number without quotes: 9876'.
import type { z } from 'zod'
import { describeValue, toJsonPath, unknownKeys, valueAt } from '../schema-issues'
import { TOPOLOGY_VERSION, topologySchema } from './schema'
import type { Problem } from './problem'

const EXAMPLE = 'see resources/topologies/two-rooms.json for a valid example'

const PORT_KEYS = new Set(['port', 'remotingPort'])

function portProblem(path: string, field: string, value: unknown): Omit<Problem, 'code'> | null {
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) {
    return {
      path,
      message: `${field} is the string "${value}"`,
      hint: `write the number without quotes: "${field}": ${value.trim()}`
    }
  }
  if (typeof value !== 'number') return null
  if (!Number.isInteger(value)) {
    return {
      path,
      message: `${field} ${value} is not a whole number`,
      hint: `write a port number such as ${Math.round(value) || 9876}`
    }
  }
  if (value === 0) {
    return {
      path,
      message: `${field} 0 would mean "any free port", which no client could find`,
      hint: `write the real port, or remove "${field}" to let the sandbox allocate one`
    }
  }
  if (value < 0 || value > 65535) {
    return { path, message: `${field} ${value} is out of range`, hint: 'ports go from 1 to 65535' }
  }
  return null
}

function kindProblem(path: string, value: unknown): Problem {
  if (value === 'drstudio/scenario') {
    return {
      code: 'wrong-kind',
      path,
      message: 'this is a DR Studio scenario, not a topology',
      hint: 'run it with `drstudio scenario run <file>`; open the topology it names instead'
    }
  }
  return {
    code: 'wrong-kind',
    path,
    message:
      value === undefined
        ? '"kind" is missing, so this is not known to be a DR Studio topology'
        : `kind is ${describeValue(value)}; a DR Studio topology has "kind": "drstudio/topology"`,
    hint: 'set "kind": "drstudio/topology", or open the file with the tool that wrote it'
  }
}

function versionProblem(path: string, value: unknown): Problem {
  const reads = `this build of DR Studio reads version ${TOPOLOGY_VERSION}`
  if (typeof value === 'string' && value.trim() === String(TOPOLOGY_VERSION)) {
    return {
      code: 'wrong-version',
      path,
      message: `version is the string "${value}"`,
      hint: `write the number without quotes: "version": ${TOPOLOGY_VERSION}`
    }
  }
  return {
    code: 'wrong-version',
    path,
    message:
      value === undefined
        ? `"version" is missing; ${reads}`
        : typeof value === 'number' && value > TOPOLOGY_VERSION
          ? `version ${value} was written by a newer DR Studio; ${reads}`
          : `version is ${describeValue(value)}; ${reads}`,
    hint:
      typeof value === 'number' && value > TOPOLOGY_VERSION
        ? 'upgrade DR Studio to open this file'
        : `set "version": ${TOPOLOGY_VERSION}`
  }
}

/** One zod issue as problems (an unrecognized_keys issue lists several keys). */
function explain(issue: z.core.$ZodIssue, root: unknown): Problem[] {
  const path = toJsonPath(issue.path)
  const last = issue.path[issue.path.length - 1]
  const field = typeof last === 'string' ? last : path
  const value = valueAt(root, issue.path)
  if (issue.path.length === 1 && last === 'kind') return [kindProblem(path, value)]
  if (issue.path.length === 1 && last === 'version') return [versionProblem(path, value)]
  if (issue.code === 'unrecognized_keys') {
    // Suggestions come from the keys valid at that very object, read off the schema.
    return unknownKeys(issue, topologySchema, root).map(({ key, path: at, meant }) => ({
      code: 'unknown-key',
      path: toJsonPath(at),
      message: `unknown key "${key}"${meant ? ` (did you mean "${meant}"?)` : ''}; DR Studio would ignore it`,
      hint: meant ? `rename it to "${meant}"` : `remove it; ${EXAMPLE}`
    }))
  }
  if (issue.code === 'custom') {
    const hint = (issue.params as { hint?: unknown } | undefined)?.hint
    return [
      {
        code: 'invalid-value',
        path,
        message: issue.message,
        hint: typeof hint === 'string' ? hint : EXAMPLE
      }
    ]
  }
  if (typeof last === 'string' && PORT_KEYS.has(last)) {
    const p = portProblem(path, field, value)
    if (p) return [{ code: 'invalid-port', ...p }]
  }
  if (value === undefined && issue.code === 'invalid_type') {
    return [
      {
        code: 'missing',
        path,
        message: `"${field}" is missing`,
        hint: `add "${field}"; ${EXAMPLE}`
      }
    ]
  }
  if (
    issue.code === 'invalid_type' &&
    issue.expected === 'number' &&
    typeof value === 'string' &&
    value.trim() !== '' &&
    Number.isFinite(Number(value))
  ) {
    return [
      {
        code: 'schema',
        path,
        message: `${field} is the string "${value}"`,
        hint: `write the number without quotes: "${field}": ${Number(value)}`
      }
    ]
  }
  if (issue.code === 'invalid_type' && issue.path.length === 0) {
    return [notAnObject(value)]
  }
  if (issue.code === 'invalid_type') {
    return [
      {
        code: 'schema',
        path,
        message: `${field} is ${describeValue(value)}; expected ${issue.expected === 'int' ? 'a whole number' : issue.expected}`,
        hint: `fix the value; ${EXAMPLE}`
      }
    ]
  }
  if (issue.code === 'invalid_value') {
    const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ')
    return [
      {
        code: 'schema',
        path,
        message: `${field} is ${describeValue(value)}; expected one of ${allowed}`,
        hint: `use one of ${allowed}`
      }
    ]
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    const bound =
      issue.code === 'too_small'
        ? `at least ${String(issue.minimum)}`
        : `at most ${String(issue.maximum)}`
    return [
      {
        code: 'schema',
        path,
        message: `${field} ${describeValue(value)} is out of range: it must be ${bound}`,
        hint: `write a value ${bound}`
      }
    ]
  }
  return [
    { code: 'schema', path, message: issue.message, hint: `fix the value at this path; ${EXAMPLE}` }
  ]
}

/** The document itself is not an object: say what it is and what would be. */
export function notAnObject(value: unknown): Problem {
  const path = '$'
  if (Array.isArray(value)) {
    return {
      code: 'not-an-object',
      path,
      message: 'the file holds a JSON array; a topology is one JSON object',
      hint: 'write {"kind": "drstudio/topology", "version": 1, …}; several topologies go in several files'
    }
  }
  if (typeof value === 'string') {
    const inner = value.trimStart()
    return {
      code: 'not-an-object',
      path,
      message: inner.startsWith('{')
        ? 'the file holds a JSON string that contains JSON: the topology was encoded twice'
        : 'the file holds a JSON string; a topology is one JSON object',
      hint: inner.startsWith('{')
        ? 'write the object itself (a script called JSON.stringify or json.dumps on text that was already JSON)'
        : 'write {"kind": "drstudio/topology", "version": 1, …}'
    }
  }
  return {
    code: 'not-an-object',
    path,
    message: `the file holds ${describeValue(value)}; a topology is one JSON object`,
    hint: 'write {"kind": "drstudio/topology", "version": 1, …}'
  }
}

/** Every zod issue of a topology parse, explained. */
export function schemaProblems(error: z.ZodError, root: unknown): Problem[] {
  return error.issues.flatMap((i) => explain(i, root))
}
