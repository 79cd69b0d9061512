// Checks of single topology values as people type, paste and generate them: ids, RocketMQ names
// and host names. Each returns what is wrong and the fix, or the value to keep (normalised where
// that is safe: trimmed, one trailing dot dropped, Unicode NFC).

export interface FieldProblem {
  message: string
  hint: string
}

/** Characters people paste without seeing them. */
const INVISIBLE: Record<number, string> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x2060: 'WORD JOINER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE'
}

function codePoint(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}

/** The first invisible or control character, described for a message ("U+200B ZERO WIDTH SPACE at character 7"). */
export function invisibleCharacter(value: string): string | null {
  const chars = [...value]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    const cp = c.codePointAt(0)!
    const name = INVISIBLE[cp] ?? (cp < 0x20 || cp === 0x7f ? 'control character' : undefined)
    if (name) return `${codePoint(c)} ${name} at character ${i + 1}`
  }
  return null
}

const PASTED =
  'delete the value and type it again (it was probably pasted from a web page, a chat or a PDF)'

/** `é` → `e`: a suggestion for ASCII-only fields. */
function asciiFold(value: string): string {
  return value.normalize('NFD').replace(/[\u0300-\u036f]/g, '')
}

/** Node and room ids: ASCII letters, digits, - and _, starting with a letter, at most 63. */
export function idProblem(value: string): FieldProblem | null {
  if (value === '') return { message: 'the id is empty', hint: 'give it an id such as "broker-1"' }
  const invisible = invisibleCharacter(value)
  if (invisible)
    return { message: `id "${value}" contains an invisible ${invisible}`, hint: PASTED }
  if (/\s/.test(value)) {
    const fixed = value.trim().replace(/\s+/g, '-')
    return {
      message: `id "${value}" contains a space`,
      hint: `ids become file names and CLI arguments; use - or _ instead: "${fixed}"`
    }
  }
  if (!/^[A-Za-z]/.test(value)) {
    return {
      message: `id "${value}" does not start with a letter`,
      hint: `start it with a letter, e.g. "n${value}"`
    }
  }
  const odd = [...value].find((c) => !/[A-Za-z0-9_-]/.test(c))
  if (odd) {
    const folded = asciiFold(value).replace(/[^A-Za-z0-9_-]/g, '-')
    return {
      message: `id "${value}" contains "${odd}"; ids use only ASCII letters, digits, - and _ (they become file names, log prefixes and CLI arguments)`,
      hint: `rename it, e.g. "${folded}"`
    }
  }
  if (value.length > 63) {
    return {
      message: `id "${value.slice(0, 20)}…" is ${value.length} characters long`,
      hint: 'shorten it to 63 characters or fewer'
    }
  }
  return null
}

/** RocketMQ's own rule for topic and group names (Validators / TopicValidator). */
export const ROCKETMQ_NAME = /^[%|A-Za-z0-9_-]+$/
export const ROCKETMQ_NAME_MAX = { topic: 127, group: 255 } as const

/** Topic and group names as RocketMQ accepts them; anything else fails when the client starts. */
export function rocketmqNameProblem(kind: 'topic' | 'group', value: string): FieldProblem | null {
  if (value === '')
    return { message: `the ${kind} name is empty`, hint: `name the ${kind}, e.g. "orders"` }
  const invisible = invisibleCharacter(value)
  if (invisible)
    return { message: `${kind} "${value}" contains an invisible ${invisible}`, hint: PASTED }
  if (!ROCKETMQ_NAME.test(value)) {
    const odd = [...value].find((c) => !/[%|A-Za-z0-9_-]/.test(c))!
    const what = /\s/.test(odd) ? 'a space' : `"${odd}"`
    return {
      message: `${kind} "${value}" contains ${what}; RocketMQ allows only ASCII letters, digits, %, |, - and _ in ${kind} names and refuses the rest`,
      hint: `rename it, e.g. "${asciiFold(value)
        .trim()
        .replace(/[^%|A-Za-z0-9_-]+/g, '-')}"`
    }
  }
  if (value.length > ROCKETMQ_NAME_MAX[kind]) {
    return {
      message: `${kind} "${value.slice(0, 20)}…" is ${value.length} characters long; RocketMQ allows ${ROCKETMQ_NAME_MAX[kind]}`,
      hint: 'shorten it'
    }
  }
  return null
}

/** Free-text names that still key things (cluster, brokerName): trimmed and NFC, nothing invisible. */
export function nameText(
  label: string,
  raw: string
): { ok: true; value: string } | ({ ok: false } & FieldProblem) {
  const value = raw.trim().normalize('NFC')
  if (value === '') return { ok: false, message: `${label} is empty`, hint: `give it a ${label}` }
  const invisible = invisibleCharacter(value)
  if (invisible)
    return {
      ok: false,
      message: `${label} "${value}" contains an invisible ${invisible}`,
      hint: PASTED
    }
  return { ok: true, value }
}

export type HostCheck = { ok: true; host: string } | ({ ok: false } & FieldProblem)

const NOT_SUPPORTED_V6 =
  'IPv6 addresses are not supported: RocketMQ address lists and DR Studio write host:port without brackets'

function bad(message: string, hint: string): HostCheck {
  return { ok: false, message, hint }
}

function ipv4Problem(host: string): HostCheck | null {
  const parts = host.split('.')
  if (!parts.every((p) => /^\d+$/.test(p))) return null
  if (parts.length !== 4) {
    return bad(
      `host "${host}" is not a full IPv4 address (${parts.length} parts instead of 4)`,
      'write all four numbers, e.g. "10.0.0.1"'
    )
  }
  for (const p of parts) {
    if (Number(p) > 255) {
      return bad(`host "${host}" is not an IPv4 address: ${p} is above 255`, 'fix the number')
    }
    if (p.length > 1 && p.startsWith('0')) {
      return bad(
        `host "${host}" has the part "${p}" with a leading zero, which some resolvers read as octal`,
        `write it without the zero: "${parts.map((x) => String(Number(x))).join('.')}"`
      )
    }
  }
  if (host === '0.0.0.0') {
    return bad(
      'host "0.0.0.0" means "every interface" to a server; clients and other rooms cannot connect to it',
      "write the machine's routable address or host name"
    )
  }
  return { ok: true, host }
}

/**
 * A host as the topology's "host" field: a host name or an IPv4 address, nothing else. Trims
 * whitespace and drops one trailing dot (a fully qualified name) on purpose; explains URLs,
 * host:port, IPv6, underscores and Unicode names with the value to write instead.
 */
export function checkHost(raw: string): HostCheck {
  const host = raw.trim()
  if (host === '') {
    return bad(
      'host is empty',
      'write the host name or IP address of the machine, or remove "host" to let the sandbox place the node'
    )
  }
  const invisible = invisibleCharacter(host)
  if (invisible) return bad(`host "${host}" contains an invisible ${invisible}`, PASTED)
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(host)) {
    let parsed: URL | null = null
    try {
      parsed = new URL(host)
    } catch {
      // reported below without a suggestion
    }
    const name = parsed?.hostname.replace(/^\[|\]$/g, '')
    return bad(
      `host "${host}" is a URL; "host" takes only the machine's name or address`,
      name
        ? `write "host": "${name}"${parsed!.port ? ` and "port": ${parsed!.port}` : ''}`
        : 'write only the host name or IP address'
    )
  }
  if (host.startsWith('[') || (host.match(/:/g) ?? []).length > 1) {
    return bad(
      `host "${host}" is an IPv6 address. ${NOT_SUPPORTED_V6}`,
      'use an IPv4 address or a host name that resolves to one'
    )
  }
  const withPort = /^([^:]+):(\d*)$/.exec(host)
  if (withPort) {
    return bad(
      `host "${host}" includes a port`,
      withPort[2]
        ? `write "host": "${withPort[1]}" and "port": ${withPort[2]}`
        : `write "host": "${withPort[1]}"`
    )
  }
  if (/[/?#@\\]/.test(host)) {
    return bad(
      `host "${host}" contains "${/[/?#@\\]/.exec(host)![0]}"; it is not a host name`,
      'write only the host name or IP address'
    )
  }
  if (/\s/.test(host))
    return bad(`host "${host}" contains a space`, 'write one host name without spaces')
  const name = host.endsWith('.') && host.length > 1 ? host.slice(0, -1) : host
  const v4 = ipv4Problem(name)
  if (v4) return v4
  if ([...name].some((c) => c.charCodeAt(0) > 0x7f)) {
    let ascii: string | null = null
    try {
      ascii = new URL(`http://${name}`).hostname
    } catch {
      // not even an IDN
    }
    return bad(
      `host "${name}" contains non-ASCII letters; Java and RocketMQ do not convert internationalised names`,
      ascii && ascii !== name
        ? `write its ASCII (punycode) form: "${ascii}"`
        : 'write the ASCII host name'
    )
  }
  if (name.includes('_')) {
    return bad(
      `host "${name}" contains "_", which host names may not (RFC 1123); Java's URI parsing and TLS reject it`,
      `use a hyphen: "${name.replace(/_/g, '-')}"`
    )
  }
  if (name.length > 253)
    return bad(`host "${name.slice(0, 20)}…" is longer than 253 characters`, 'shorten it')
  for (const label of name.split('.')) {
    if (label === '')
      return bad(
        `host "${name}" has an empty label (two dots in a row, or a leading dot)`,
        'remove the extra dot'
      )
    if (label.length > 63)
      return bad(`host "${name}" has a label longer than 63 characters`, 'shorten it')
    if (!/^[A-Za-z0-9-]+$/.test(label)) {
      const odd = [...label].find((c) => !/[A-Za-z0-9-]/.test(c))!
      return bad(
        `host "${name}" contains "${odd}", which host names may not`,
        'use letters, digits, hyphens and dots only'
      )
    }
    if (label.startsWith('-') || label.endsWith('-')) {
      return bad(
        `host "${name}" has a label that starts or ends with "-"`,
        'move or remove the hyphen'
      )
    }
  }
  return { ok: true, host: name }
}
