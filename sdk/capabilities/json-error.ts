// Where a JSON text first breaks, as line and column: Node's JSON.parse messages carry a position on
// some versions only. A small validating scanner (no values built) finds the offset itself; it also
// tells where each value starts, so problems in a valid file can name their line.

const WS = new Set([' ', '\t', '\n', '\r'])

/** A value's place in the document: object keys and array indexes from the root. */
export type JsonPath = Array<string | number>

/** Offset of the first syntax error, or -1 when the text is valid JSON. */
export function jsonErrorOffset(text: string): number {
  return scanJson(text)
}

/** Offsets where each value starts, keyed by its path joined with `/` (the root is ``). */
export function jsonValueOffsets(text: string): Map<string, number> {
  const offsets = new Map<string, number>()
  scanJson(text, (path, offset) => offsets.set(path.join('/'), offset))
  return offsets
}

function scanJson(text: string, onValue?: (path: JsonPath, offset: number) => void): number {
  const path: JsonPath = []
  let i = 0
  const ws = () => {
    while (i < text.length && WS.has(text[i]!)) i++
  }
  const fail = (): never => {
    throw i
  }
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length
    else fail()
  }
  const string = (): string => {
    const start = i
    i++ // opening quote
    while (i < text.length) {
      const c = text[i]!
      if (c === '"') {
        i++
        // Keys are only needed to locate values; JSON.parse reads the escapes.
        return onValue ? (JSON.parse(text.slice(start, i)) as string) : ''
      }
      if (c === '\\') {
        const e = text[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail()
          i += 6
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2
        else fail()
        continue
      }
      if (c < ' ') fail()
      i++
    }
    return fail()
  }
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))
    if (!m || m[0] === '' || m[0] === '-') fail()
    i += m![0].length
  }
  const value = (): void => {
    ws()
    onValue?.(path, i)
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') return void i++
      for (;;) {
        ws()
        if (text[i] !== '"') fail()
        const key = string()
        ws()
        if (text[i] !== ':') fail()
        i++
        path.push(key)
        value()
        path.pop()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === '}') return void i++
        else fail()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') return void i++
      for (let index = 0; ; index++) {
        path.push(index)
        value()
        path.pop()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === ']') return void i++
        else fail()
      }
    }
    if (c === '"') return void string()
    if (c === 't') return literal('true')
    if (c === 'f') return literal('false')
    if (c === 'n') return literal('null')
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number()
    fail()
  }
  try {
    value()
    ws()
    return i < text.length ? i : -1
  } catch (offset) {
    return offset as number
  }
}

/** `line L column C` of an offset (both 1-based). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') }
}
