// The line a value of a JSON or TOML document was written on, so a problem in a permission file can
// say where it is. The parsers give values only; these scanners map each value's path (keys and
// array indexes) to its line. A path not found falls back to its nearest written parent.

import { jsonValueOffsets, lineColumn, type JsonPath } from './json-error.ts'

export type LineOf = (path: JsonPath) => number | undefined

export function lineLocator(format: 'json' | 'toml', text: string): LineOf {
  let lines: Map<string, number> | undefined
  return (path) => {
    lines ??= format === 'json' ? jsonLines(text) : tomlLines(text)
    for (let n = path.length; n >= 0; n--) {
      const line = lines.get(path.slice(0, n).join('/'))
      if (line !== undefined) return line
    }
    return undefined
  }
}

function jsonLines(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const [key, offset] of jsonValueOffsets(text)) out.set(key, lineColumn(text, offset).line)
  return out
}

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')`
const KEY = new RegExp(String.raw`^(${KEY_PART}(?:\s*\.\s*${KEY_PART})*)\s*=(.*)$`)
const HEADER = new RegExp(String.raw`^(\[\[?)\s*(${KEY_PART}(?:\s*\.\s*${KEY_PART})*)\s*\]\]?`)

function splitKey(key: string): string[] {
  return (key.match(new RegExp(KEY_PART, 'g')) ?? []).map((part) => (part.startsWith('"') ? (JSON.parse(part) as string) : part.startsWith("'") ? part.slice(1, -1) : part))
}

/** Open brackets minus closed ones, outside strings and comments (multi-line arrays and inline tables). */
function bracketDepth(value: string): number {
  let depth = 0
  let quote: string | undefined
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (quote) {
      if (c === '\\' && quote === '"') i++
      else if (c === quote) quote = undefined
    } else if (c === '"' || c === "'") quote = c
    else if (c === '#') break
    else if (c === '[' || c === '{') depth++
    else if (c === ']' || c === '}') depth--
  }
  return depth
}

function tomlLines(text: string): Map<string, number> {
  const out = new Map<string, number>()
  const arrays = new Map<string, number>()
  const record = (path: JsonPath, line: number) => {
    for (let n = 1; n <= path.length; n++) {
      const key = path.slice(0, n).join('/')
      if (!out.has(key)) out.set(key, line)
    }
  }
  // A dotted name walks into the latest element of every array of tables it passes.
  const resolve = (segments: string[], newElement: boolean): JsonPath => {
    const path: JsonPath = []
    segments.forEach((segment, j) => {
      path.push(segment)
      const key = path.join('/')
      if (newElement && j === segments.length - 1) {
        const count = arrays.get(key) ?? 0
        arrays.set(key, count + 1)
        path.push(count)
      } else if (arrays.has(key)) path.push(arrays.get(key)! - 1)
    })
    return path
  }
  let table: JsonPath = []
  let depth = 0
  let multiline: string | undefined
  text.split('\n').forEach((raw, index) => {
    const line = index + 1
    if (multiline) {
      if (raw.includes(multiline)) multiline = undefined
      return
    }
    if (depth > 0) {
      depth += bracketDepth(raw)
      return
    }
    const trimmed = raw.trim()
    const header = HEADER.exec(trimmed)
    if (header) {
      table = resolve(splitKey(header[2]!), header[1] === '[[')
      record(table, line)
      return
    }
    const pair = KEY.exec(trimmed)
    if (!pair) return
    record([...table, ...splitKey(pair[1]!)], line)
    const value = pair[2]!.trim()
    const triple = value.startsWith('"""') ? '"""' : value.startsWith("'''") ? "'''" : undefined
    if (triple && !value.slice(3).includes(triple)) multiline = triple
    else depth = Math.max(0, bracketDepth(value))
  })
  return out
}
