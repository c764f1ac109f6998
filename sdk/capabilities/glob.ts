// UNIX shell globs with the semantics of the Rust `glob` crate the reference implementation uses:
// window/webview labels and opener URL scopes match with the default options (`*` crosses `/`,
// case-sensitive, no escapes); opener path scopes require a literal `/` and a literal leading dot.
// A port of its parser and backtracking matcher (picomatch cannot make `*` cross `/`), including
// its syntax errors, so a pattern is accepted or refused exactly as there.

export interface GlobOptions {
  /** `*`, `?` and classes never match `/` (path scopes). */
  requireLiteralSeparator?: boolean
  /** A `.` at the start of a path component must be matched literally (path scopes on Unix). */
  requireLiteralLeadingDot?: boolean
}

type CharSpec = { single: string } | { from: string; to: string }
type Token =
  | { t: 'char'; c: string }
  | { t: 'any' }
  | { t: 'seq' }
  | { t: 'rec' }
  | { t: 'within'; specs: CharSpec[] }
  | { t: 'except'; specs: CharSpec[] }

export class GlobSyntaxError extends Error {
  readonly position: number
  readonly reason: string
  constructor(position: number, reason: string) {
    super(`Pattern syntax error near position ${position}: ${reason}`)
    this.name = 'GlobSyntaxError'
    this.position = position
    this.reason = reason
  }
}

const isSeparator = (c: string) => c === '/'

function parseSpecs(chars: string[]): CharSpec[] {
  const specs: CharSpec[] = []
  for (let i = 0; i < chars.length; ) {
    if (i + 3 <= chars.length && chars[i + 1] === '-') {
      specs.push({ from: chars[i]!, to: chars[i + 2]! })
      i += 3
    } else {
      specs.push({ single: chars[i]! })
      i += 1
    }
  }
  return specs
}

const inSpecs = (specs: CharSpec[], c: string) =>
  specs.some((s) => ('single' in s ? s.single === c : (s.from.codePointAt(0)! <= c.codePointAt(0)! && c.codePointAt(0)! <= s.to.codePointAt(0)!)))

export class Glob {
  readonly source: string
  private readonly tokens: Token[]
  /** A pattern without metacharacters matches only itself. */
  private readonly literal: boolean

  /** Throws GlobSyntaxError for `a**`, `***`, an unclosed `[` … */
  constructor(pattern: string) {
    this.source = pattern
    this.tokens = tokenize(pattern)
    this.literal = this.tokens.every((t) => t.t === 'char')
  }

  matches(text: string, options: GlobOptions = {}): boolean {
    if (this.literal) return text === this.source
    // Characters are code points; a string without surrogates can be indexed as it is.
    const file: ArrayLike<string> = /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : text
    return this.matchFrom(true, file, 0, 0, options) === MATCH
  }

  private matchFrom(followsSeparator: boolean, file: ArrayLike<string>, fi: number, ti: number, o: GlobOptions): number {
    for (let k = ti; k < this.tokens.length; k++) {
      const token = this.tokens[k]!
      if (token.t === 'seq' || token.t === 'rec') {
        const empty = this.matchFrom(followsSeparator, file, fi, k + 1, o)
        if (empty !== SUB_MISS) return empty
        while (fi < file.length) {
          const c = file[fi++]!
          if (followsSeparator && o.requireLiteralLeadingDot && c === '.') return SUB_MISS
          followsSeparator = isSeparator(c)
          if (token.t === 'rec' && !followsSeparator) continue
          if (token.t === 'seq' && o.requireLiteralSeparator && followsSeparator) return SUB_MISS
          const rest = this.matchFrom(followsSeparator, file, fi, k + 1, o)
          if (rest !== SUB_MISS) return rest
        }
        continue
      }
      if (fi >= file.length) return ENTIRE_MISS
      const c = file[fi++]!
      const sep = isSeparator(c)
      let ok: boolean
      if (token.t !== 'char' && ((o.requireLiteralSeparator && sep) || (followsSeparator && o.requireLiteralLeadingDot && c === '.'))) ok = false
      else if (token.t === 'any') ok = true
      else if (token.t === 'within') ok = inSpecs(token.specs, c)
      else if (token.t === 'except') ok = !inSpecs(token.specs, c)
      else ok = token.c === c
      if (!ok) return SUB_MISS
      followsSeparator = sep
    }
    return fi >= file.length ? MATCH : SUB_MISS
  }
}

const MATCH = 0
const SUB_MISS = 1
const ENTIRE_MISS = 2

function tokenize(pattern: string): Token[] {
  const chars = Array.from(pattern)
  const tokens: Token[] = []
  let i = 0
  while (i < chars.length) {
    const c = chars[i]!
    if (c === '?') {
      tokens.push({ t: 'any' })
      i++
    } else if (c === '*') {
      const old = i
      while (i < chars.length && chars[i] === '*') i++
      const count = i - old
      if (count > 2) throw new GlobSyntaxError(old + 2, 'wildcards are either regular `*` or recursive `**`')
      if (count === 2) {
        // `**` must be a whole path component: a/**/b, **/b, a/** — never a**/b or a/**b.
        if (i === 2 || isSeparator(chars[i - count - 1]!)) {
          if (i < chars.length && isSeparator(chars[i]!)) i++
          else if (i !== chars.length) throw new GlobSyntaxError(i, 'recursive wildcards must form a single path component')
        } else throw new GlobSyntaxError(old - 1, 'recursive wildcards must form a single path component')
        if (!(tokens.length > 1 && tokens[tokens.length - 1]!.t === 'rec')) tokens.push({ t: 'rec' })
      } else tokens.push({ t: 'seq' })
    } else if (c === '[') {
      // A `]` right after `[` or `[!` belongs to the class.
      if (i + 4 <= chars.length && chars[i + 1] === '!') {
        const j = chars.slice(i + 3).indexOf(']')
        if (j !== -1) {
          tokens.push({ t: 'except', specs: parseSpecs(chars.slice(i + 2, i + 3 + j)) })
          i += j + 4
          continue
        }
      } else if (i + 3 <= chars.length && chars[i + 1] !== '!') {
        const j = chars.slice(i + 2).indexOf(']')
        if (j !== -1) {
          tokens.push({ t: 'within', specs: parseSpecs(chars.slice(i + 1, i + 2 + j)) })
          i += j + 3
          continue
        }
      }
      throw new GlobSyntaxError(i, 'invalid range pattern')
    } else {
      tokens.push({ t: 'char', c })
      i++
    }
  }
  return tokens
}

/** Makes a literal string safe inside a pattern (`[` → `[[]` …). */
export function escapeGlob(text: string): string {
  return Array.from(text, (c) => ('?*[]'.includes(c) ? `[${c}]` : c)).join('')
}

/** The syntax error of a pattern, or undefined. */
export function globError(pattern: string): string | undefined {
  try {
    new Glob(pattern)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}
