// What topology and scenario files share when they explain a zod issue: the JSON path of the
// offending value, the keys the schema knows at that object, and the known word a typo most
// likely meant. One home, so both file kinds word the same mistake the same way.
import type { z } from 'zod'

/**
 * Formats a zod issue path: `$.rooms[0].brokers[1].port` with the default root, or
 * `gates.maxRtoMs` / `timeline[0].action` with root `''` (how scenario problems read).
 */
export function toJsonPath(path: readonly PropertyKey[], root = '$'): string {
  return path.reduce<string>((acc, seg) => {
    if (typeof seg === 'number') return `${acc}[${seg}]`
    const key = String(seg)
    if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${acc}[${JSON.stringify(key)}]`
    return acc === '' ? key : `${acc}.${key}`
  }, root)
}

/** The value a zod issue path points at in the document that was parsed (undefined if absent). */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined
    if (!Object.prototype.hasOwnProperty.call(v, seg)) return undefined
    v = (v as Record<PropertyKey, unknown>)[seg as string]
  }
  return v
}

/** How a value reads in a message: `the string "9876"`, `number 3`, `an object`. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string')
    return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`
  return `${typeof v} ${String(v)}`
}

/** Edit distance counting an adjacent swap as one edit ("prot" is one edit from "port"). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The candidate a typo most likely meant: the same word in another case first, then the nearest
 * within two edits (one for words under six letters, none under three), else null, so a key that
 * is nothing like any known one gets no wrong-headed suggestion.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | null {
  const lower = word.toLowerCase()
  const sameCase = candidates.find((c) => c.toLowerCase() === lower)
  if (sameCase !== undefined) return sameCase
  const allowed = Math.min(2, Math.floor(word.length / 3))
  let best: string | null = null
  let bestD = allowed + 1
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase())
    if (d < bestD) [best, bestD] = [c, d]
  }
  return best
}

type AnySchema = z.core.$ZodType

/**
 * The concrete schemas that can describe `value`: wrappers that do not change an object's keys
 * (optional, default, a transform's input) are looked through, and a discriminated union
 * contributes only the option the value's tag selects.
 */
function candidates(schema: AnySchema, value: unknown): AnySchema[] {
  const def = (schema as z.core.$ZodTypes)._zod.def
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return candidates(def.innerType, value)
    case 'pipe':
      return [...candidates(def.in, value), ...candidates(def.out, value)]
    case 'lazy':
      return candidates(def.getter(), value)
    case 'intersection':
      return [...candidates(def.left, value), ...candidates(def.right, value)]
    case 'union': {
      const tag = (def as { discriminator?: string }).discriminator
      const options =
        tag !== undefined && value !== null && typeof value === 'object'
          ? def.options.filter((o) =>
              o._zod.propValues?.[tag]?.has((value as Record<string, unknown>)[tag] as never)
            )
          : def.options
      return options.flatMap((o) => candidates(o, value))
    }
    default:
      return [schema]
  }
}

/** The schemas that can sit one step down `seg` from `schema` (value = the document at schema). */
function childSchemas(schema: AnySchema, seg: PropertyKey): AnySchema[] {
  const def = (schema as z.core.$ZodTypes)._zod.def
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<PropertyKey, AnySchema>
      const child = Object.prototype.hasOwnProperty.call(shape, seg) ? shape[seg] : def.catchall
      return child ? [child] : []
    }
    case 'array':
      return typeof seg === 'number' ? [def.element] : []
    case 'tuple':
      return typeof seg === 'number' && def.items[seg] ? [def.items[seg]] : []
    case 'record':
      return [def.valueType]
    default:
      return []
  }
}

/**
 * The keys the schema allows at the object `path` points to in `root`, in schema order. Unions
 * follow the document: a discriminated union contributes only the option its tag selects, so a
 * `partition` step offers `peer` and a `kill` step does not.
 */
export function keysAt(schema: AnySchema, root: unknown, path: readonly PropertyKey[]): string[] {
  let here = candidates(schema, root)
  for (let i = 0; i < path.length; i++) {
    const value = valueAt(root, path.slice(0, i + 1))
    here = here.flatMap((s) => childSchemas(s, path[i]!)).flatMap((s) => candidates(s, value))
  }
  const keys = new Set<string>()
  for (const s of here) {
    const def = (s as z.core.$ZodTypes)._zod.def
    if (def.type === 'object') for (const k of Object.keys(def.shape)) keys.add(k)
  }
  return [...keys]
}

/** One key a strict object refused, where it is, and what was probably meant. */
export interface UnknownKey {
  key: string
  /** Path segments of the key itself (the object's path plus the key). */
  path: PropertyKey[]
  /** The keys that object takes. */
  known: string[]
  /** The known key closest to it, or null when none is close. */
  meant: string | null
}

/** The unknown keys of one `unrecognized_keys` issue, each with its closest known key. */
export function unknownKeys(
  issue: z.core.$ZodIssueUnrecognizedKeys,
  schema: AnySchema,
  root: unknown
): UnknownKey[] {
  const known = keysAt(schema, root, issue.path)
  return issue.keys.map((key) => ({
    key,
    path: [...issue.path, key],
    known,
    meant: closestMatch(key, known)
  }))
}
