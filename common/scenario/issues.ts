// Turns zod's issues on a scenario file into lines a person can act on, in the scenario's own
// path form (`gates.maxRtoMs`, `timeline[0].action`, the form checkScenario's problems use):
// 'gates.maxRtoMS: unknown key "maxRtoMS"; did you mean "maxRtoMs"?'.
import type { z } from 'zod'
import { closestMatch, describeValue, toJsonPath, unknownKeys, valueAt } from '../schema-issues'
import type { Scenario } from './schema'
import { scenarioSchema } from './schema'

type Issue = z.core.$ZodIssue

/** A scenario path as problems print it (`''` is the document itself). */
const pathText = (path: readonly PropertyKey[]): string => toJsonPath(path, '')

/** `path: text`, or just the text for the document itself. */
const at = (path: readonly PropertyKey[], text: string): string =>
  path.length ? `${pathText(path)}: ${text}` : text

/** The step at `timeline[i]`'s action, when the path is inside a step and it names one. */
function stepAction(path: readonly PropertyKey[], root: unknown): string | null {
  if (path[0] !== 'timeline' || path.length < 2) return null
  const action = (valueAt(root, path.slice(0, 2)) as { action?: unknown } | undefined)?.action
  return typeof action === 'string' ? action : null
}

/** What the object a path points at is called: `a partition step`, `gates`, `a scenario`. */
function objectName(path: readonly PropertyKey[], root: unknown): string {
  if (path.length === 0) return 'a scenario'
  const action = path.length === 2 ? stepAction(path, root) : null
  return action ? `a ${action} step` : pathText(path)
}

function unknownKeyLines(issue: z.core.$ZodIssueUnrecognizedKeys, root: unknown): string[] {
  return unknownKeys(issue, scenarioSchema, root).map(({ key, path, known, meant }) => {
    const where = objectName(issue.path, root)
    const fix = meant
      ? `did you mean ${JSON.stringify(meant)}?`
      : known.length
        ? `remove it (${where} takes ${known.join(', ')})`
        : 'remove it'
    return at(path, `unknown key ${JSON.stringify(key)}; ${fix}`)
  })
}

/** For a step's missing field: which step shape wants it. */
function neededBy(path: readonly PropertyKey[], root: unknown): string {
  const action = path.length === 3 ? stepAction(path, root) : null
  return action ? ` (a ${action} step needs it)` : ''
}

/** The union branch the value's type matched (its issues are the useful ones), if exactly one. */
function matchedBranch(issue: z.core.$ZodIssueInvalidUnion): Issue[] | null {
  const typed = issue.errors.filter(
    (errs) => !errs.some((e) => e.code === 'invalid_type' && e.path.length === 0)
  )
  return typed.length === 1 ? typed[0]! : null
}

/** One zod issue as problem lines (an unrecognized_keys issue lists several keys). */
function explain(issue: Issue, root: unknown): string[] {
  const value = valueAt(root, issue.path)
  const last = issue.path[issue.path.length - 1]
  switch (issue.code) {
    case 'unrecognized_keys':
      return unknownKeyLines(issue, root)
    case 'invalid_type':
      if (issue.path.length === 0)
        return [
          `the file holds ${describeValue(value)}; a scenario is a YAML mapping (name: …, topology: …)`
        ]
      if (value === undefined) return [at(issue.path, `is missing${neededBy(issue.path, root)}`)]
      return [
        at(issue.path, `is ${describeValue(value)}; expected ${expectedText(issue.expected)}`)
      ]
    case 'invalid_value': {
      if (issue.path.length === 1 && last === 'kind' && value === 'drstudio/topology')
        return [
          at(
            issue.path,
            'this is a DR Studio topology, not a scenario; name it in a scenario’s `topology` key'
          )
        ]
      const allowed = issue.values.map((v) => JSON.stringify(v))
      const meant =
        typeof value === 'string'
          ? closestMatch(
              value,
              issue.values.map((v) => String(v))
            )
          : null
      return [
        at(
          issue.path,
          `is ${describeValue(value)}; expected ${allowed.length > 1 ? `one of ${allowed.join(', ')}` : allowed[0]}` +
            (meant ? ` (did you mean ${JSON.stringify(meant)}?)` : '')
        )
      ]
    }
    case 'too_small':
    case 'too_big': {
      if (issue.origin !== 'number') return [at(issue.path, issue.message)]
      const bound =
        issue.code === 'too_small'
          ? `at least ${String(issue.minimum)}`
          : `at most ${String(issue.maximum)}`
      return [at(issue.path, `${String(value)} is out of range; it must be ${bound}`)]
    }
    case 'invalid_union': {
      // A step whose action picks no shape: the schema's own message lists the actions.
      if (issue.discriminator !== undefined) return [at(issue.path, issue.message)]
      const branch = matchedBranch(issue)
      if (branch)
        return branch.flatMap((e) => explain({ ...e, path: [...issue.path, ...e.path] }, root))
      const expected = issue.errors.flatMap((errs) =>
        errs.flatMap((e) => (e.code === 'invalid_type' && e.path.length === 0 ? [e.expected] : []))
      )
      return [
        at(
          issue.path,
          expected.length
            ? `is ${describeValue(value)}; expected ${[...new Set(expected.map(expectedText))].join(' or ')}`
            : issue.message
        )
      ]
    }
    default:
      return [at(issue.path, issue.message)]
  }
}

function expectedText(expected: string): string {
  if (expected === 'int') return 'a whole number'
  if (expected === 'array') return 'a list'
  if (expected === 'object') return 'a mapping'
  return `a ${expected}`
}

/** Every zod issue of a scenario parse, explained; several per issue when it names several keys. */
export function scenarioSchemaProblems(error: z.ZodError, root: unknown): string[] {
  return error.issues.flatMap((i) => explain(i, root))
}

/** A copy of the document without the keys a strict object refused. */
function withoutUnknownKeys(root: unknown, issues: readonly Issue[]): unknown {
  const copy = structuredClone(root)
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue
    const holder = valueAt(copy, issue.path)
    if (holder !== null && typeof holder === 'object')
      for (const key of issue.keys) delete (holder as Record<string, unknown>)[key]
  }
  return copy
}

/**
 * Parses a scenario document and explains every problem. When the only problems are unknown keys,
 * the rest of the file is well-formed, so the scenario without them comes back too: the caller
 * can go on to check the topology and selectors and report everything at once (never run it).
 */
export function parseScenarioDocument(raw: unknown): {
  scenario: Scenario | null
  problems: string[]
} {
  const parsed = scenarioSchema.safeParse(raw)
  if (parsed.success) return { scenario: parsed.data, problems: [] }
  const problems = scenarioSchemaProblems(parsed.error, raw)
  if (!parsed.error.issues.every((i) => i.code === 'unrecognized_keys'))
    return { scenario: null, problems }
  const rest = scenarioSchema.safeParse(withoutUnknownKeys(raw, parsed.error.issues))
  return { scenario: rest.success ? rest.data : null, problems }
}
