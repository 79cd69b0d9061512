const NAME = /^[A-Za-z_:][A-Za-z0-9_.:-]*/
const ENTITY = /^&(amp|lt|gt|quot|apos|#\d+|#x[0-9A-Fa-f]+);/

function badAmpersand(text: string): boolean {
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    if (!ENTITY.test(text.slice(i))) return true
  }
  return false
}

/**
 * Checks that text is well-formed XML (one root, balanced tags, quoted unique attributes, valid
 * entities); returns the problems, empty when fine. Enough for generated draw.io files; no DTDs.
 */
export function xmlProblems(text: string): string[] {
  const problems: string[] = []
  const stack: string[] = []
  let roots = 0
  let i = 0
  const at = (pos: number) => {
    const before = text.slice(0, pos)
    return `line ${before.split('\n').length}`
  }
  while (i < text.length) {
    const lt = text.indexOf('<', i)
    const chunk = text.slice(i, lt < 0 ? text.length : lt)
    if (chunk.trim()) {
      if (stack.length === 0) problems.push(`${at(i)}: text outside the root element`)
      if (badAmpersand(chunk)) problems.push(`${at(i)}: bare & in text`)
      if (chunk.includes('>') && stack.length === 0) problems.push(`${at(i)}: stray >`)
    }
    if (lt < 0) break
    i = lt
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4)
      if (end < 0) return [...problems, `${at(i)}: unclosed comment`]
      i = end + 3
      continue
    }
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2)
      if (end < 0) return [...problems, `${at(i)}: unclosed processing instruction`]
      if (text.startsWith('<?xml', i) && i !== 0)
        problems.push(`${at(i)}: XML declaration not at the start`)
      i = end + 2
      continue
    }
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i)
      if (end < 0) return [...problems, `${at(i)}: unclosed CDATA`]
      i = end + 3
      continue
    }
    if (text.startsWith('</', i)) {
      const m = NAME.exec(text.slice(i + 2))
      const end = text.indexOf('>', i)
      if (!m || end < 0 || text.slice(i + 2 + m[0].length, end).trim()) {
        return [...problems, `${at(i)}: malformed end tag`]
      }
      const open = stack.pop()
      if (open !== m[0]) problems.push(`${at(i)}: </${m[0]}> closes <${open ?? 'nothing'}>`)
      i = end + 1
      continue
    }
    const m = NAME.exec(text.slice(i + 1))
    if (!m) return [...problems, `${at(i)}: < not followed by a tag name`]
    const name = m[0]
    let j = i + 1 + name.length
    const seen = new Set<string>()
    for (;;) {
      while (/\s/.test(text[j] ?? '')) j++
      if (text.startsWith('/>', j) || text[j] === '>') break
      const a = NAME.exec(text.slice(j))
      if (!a) return [...problems, `${at(j)}: malformed attribute in <${name}>`]
      if (seen.has(a[0])) problems.push(`${at(j)}: duplicate attribute ${a[0]} in <${name}>`)
      seen.add(a[0])
      j += a[0].length
      while (/\s/.test(text[j] ?? '')) j++
      if (text[j] !== '=') return [...problems, `${at(j)}: attribute ${a[0]} has no value`]
      j++
      while (/\s/.test(text[j] ?? '')) j++
      const q = text[j]
      if (q !== '"' && q !== "'") return [...problems, `${at(j)}: unquoted value of ${a[0]}`]
      const close = text.indexOf(q, j + 1)
      if (close < 0) return [...problems, `${at(j)}: unterminated value of ${a[0]}`]
      const value = text.slice(j + 1, close)
      if (value.includes('<')) problems.push(`${at(j)}: < inside the value of ${a[0]}`)
      if (badAmpersand(value)) problems.push(`${at(j)}: bare & inside the value of ${a[0]}`)
      j = close + 1
      if (!/[\s/>]/.test(text[j] ?? ''))
        return [...problems, `${at(j)}: attributes must be separated`]
    }
    if (stack.length === 0) roots++
    if (text.startsWith('/>', j)) {
      i = j + 2
    } else {
      stack.push(name)
      i = j + 1
    }
  }
  if (stack.length) problems.push(`unclosed element(s): ${stack.join(' > ')}`)
  if (roots !== 1) problems.push(`expected one root element, found ${roots}`)
  return problems
}
