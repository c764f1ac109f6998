// What Telegram does with a MarkdownV2 text, for the fake: the parse (an unescaped reserved character,
// an entity left open or crossed, an unfinished link are refused with Telegram's wording) and the text
// a person reads (markers and escapes gone).

const RESERVED = new Set('_*[]()~`>#+-=|{}.!')
const NAMES: Record<string, string> = { bold: 'Bold', italic: 'Italic', underline: 'Underline', strike: 'Strikethrough', spoiler: 'Spoiler', link: 'TextUrl' }

export type V2Result = { ok: true; plain: string } | { ok: false; error: string }

export function parseMarkdownV2(text: string): V2Result {
  const stack: string[] = []
  let plain = ''
  let i = 0
  const fail = (error: string): V2Result => ({ ok: false, error: `Bad Request: can't parse entities: ${error}` })
  /** Reads to the unescaped `end`, unescaping; -1 when it never comes. */
  const until = (from: number, end: string): [string, number] => {
    let out = ''
    for (let j = from; j < text.length; j++) {
      if (text[j] === '\\' && j + 1 < text.length) {
        out += text[++j]
        continue
      }
      if (text.startsWith(end, j)) return [out, j]
      out += text[j]
    }
    return [out, -1]
  }
  const toggle = (type: string, width: number) => {
    if (stack.at(-1) === type) stack.pop()
    else if (stack.includes(type)) return false
    else stack.push(type)
    i += width
    return true
  }
  while (i < text.length) {
    const c = text[i]!
    const lineStart = i === 0 || text[i - 1] === '\n'
    if (c === '\\') {
      if (i + 1 >= text.length) return fail(`Can't find end of escape at byte offset ${i}`)
      plain += text[i + 1]
      i += 2
      continue
    }
    if (text.startsWith('```', i)) {
      const [content, end] = until(i + 3, '```')
      if (end === -1) return fail(`Can't find end of Pre entity at byte offset ${i}`)
      const newline = content.indexOf('\n')
      plain += newline !== -1 && !/\s/.test(content.slice(0, newline)) ? content.slice(newline + 1) : content
      i = end + 3
      continue
    }
    if (c === '`') {
      const [content, end] = until(i + 1, '`')
      if (end === -1) return fail(`Can't find end of Code entity at byte offset ${i}`)
      plain += content
      i = end + 1
      continue
    }
    if (c === '*' && toggle('bold', 1)) continue
    if (c === '_' && text[i + 1] === '_' && toggle('underline', 2)) continue
    if (c === '_' && toggle('italic', 1)) continue
    if (c === '~' && toggle('strike', 1)) continue
    if (c === '|' && text[i + 1] === '|' && toggle('spoiler', 2)) continue
    if (c === '[') {
      stack.push('link')
      i++
      continue
    }
    if (c === ']' && stack.at(-1) === 'link') {
      stack.pop()
      if (text[i + 1] !== '(') return fail(`Can't find end of TextUrl entity at byte offset ${i}`)
      const [, end] = until(i + 2, ')')
      if (end === -1) return fail(`Can't find end of TextUrl entity at byte offset ${i}`)
      i = end + 1
      continue
    }
    if (c === '>' && lineStart) {
      i++
      continue
    }
    // Telegram ignores a carriage return (it separates `_` `_` from underline's `__`).
    if (c === '\r') {
      i++
      continue
    }
    if (RESERVED.has(c)) return fail(`Character '${c}' is reserved and must be escaped with the preceding '\\'`)
    plain += c
    i++
  }
  if (stack.length) return fail(`Can't find end of ${NAMES[stack.at(-1)!] ?? stack.at(-1)} entity at byte offset ${text.length}`)
  return { ok: true, plain }
}
