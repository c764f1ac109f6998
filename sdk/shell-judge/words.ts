// Word resolution for the shell parse: what a word is after quote removal (`r''m`, `"rm"`, `\rm`,
// `$'r\x6d'` are all `rm`). Parts only known at run time (expansions, substitutions) become UNKNOWN;
// `$HOME`/`~` stay `~` so home paths are still recognised; unquoted globs make a word non-literal.

import type { Node } from 'web-tree-sitter'

/** Stands for a part of a word only known when the command runs. */
export const UNKNOWN = '\u0000'

export interface Word {
  /** The value after quote removal, with UNKNOWN for run-time parts and `~` for the home directory. */
  value: string
  /** Fully known: no expansion, no substitution, no unquoted glob. */
  literal: boolean
  /** The whole word is a process substitution `<(…)` / `>(…)`. */
  procSub?: boolean
}

/** Variables assigned once to a literal value in the script (null: assigned otherwise, unknown). */
export type Vars = Map<string, string | null>

const HOME_VARS = new Set(['HOME'])

export function literalWord(value: string): Word {
  return { value, literal: true }
}

export function resolveWord(node: Node, vars: Vars): Word {
  const out = { value: '', literal: true }
  part(node, vars, out)
  return node.type === 'process_substitution' ? { ...out, procSub: true } : out
}

function part(node: Node, vars: Vars, out: Word): void {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'special_variable_name':
      return unquoted(node.text, out)
    case 'raw_string':
      out.value += node.text.slice(1, -1)
      return
    case 'ansi_c_string':
      out.value += ansiC(node.text.slice(2, -1))
      return
    case 'string':
    case 'translated_string':
    case 'heredoc_body':
      return quoted(node, vars, out)
    case 'string_content':
    case 'heredoc_content':
      out.value += node.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c))
      return
    case 'concatenation':
      for (const child of node.children) if (child) part(child, vars, out)
      return
    case 'simple_expansion':
    case 'expansion':
      return expansion(node, vars, out)
    case 'command_substitution': {
      // `$(echo /)`: what a plain echo of literal words prints is known (still not literal text).
      const echoed = echoOf(node, vars)
      if (echoed === undefined) return unknown(out)
      out.value += echoed
      out.literal = false
      return
    }
    default:
      // Substitutions, arithmetic, brace expressions, anything else: known only at run time.
      if (node.isNamed || node.text.trim()) unknown(out)
  }
}

function unquoted(text: string, out: Word): void {
  const value = text.replace(/\\(\r?\n|.)/gs, (_, c: string) => (c.endsWith('\n') ? '' : c))
  // Globs and brace lists expand at run time (an escaped one would be literal; treated the same here).
  if (/[*?[{]/.test(text.replace(/\\./g, ''))) out.literal = false
  out.value += value
}

function quoted(node: Node, vars: Vars, out: Word): void {
  const children = node.children.filter((c): c is Node => c !== null)
  if (node.type === 'heredoc_body' && children.length === 0) {
    out.value += node.text
    return
  }
  let cursor = node.startIndex
  for (const child of children) {
    // Text between named children (string_content is not always a node, e.g. around expansions).
    if (child.startIndex > cursor && node.type === 'heredoc_body') out.value += node.text.slice(cursor - node.startIndex, child.startIndex - node.startIndex)
    cursor = child.endIndex
    if (!child.isNamed) continue
    part(child, vars, out)
  }
  if (node.type === 'heredoc_body' && cursor < node.endIndex) out.value += node.text.slice(cursor - node.startIndex)
}

function expansion(node: Node, vars: Vars, out: Word): void {
  const named = node.namedChildren.filter((c): c is Node => c !== null)
  const simple = named.length === 1 && (named[0]!.type === 'variable_name' || (named[0]!.type === 'special_variable_name' && /^[@*]$/.test(named[0]!.text))) && node.children.length <= 3
  const name = simple ? named[0]!.text : undefined
  if (name && HOME_VARS.has(name)) {
    out.value += '~'
    return
  }
  const known = name !== undefined ? vars.get(name) : undefined
  if (typeof known === 'string') out.value += known
  else unknown(out)
}

/** The output of `$(echo WORD…)` with literal words and no options, else undefined. */
function echoOf(node: Node, vars: Vars): string | undefined {
  const body = node.namedChildren.filter((c): c is Node => c !== null)
  if (body.length !== 1 || body[0]!.type !== 'command') return undefined
  const parts = body[0]!.namedChildren.filter((c): c is Node => c !== null)
  if (parts[0]?.type !== 'command_name' || parts[0].text !== 'echo') return undefined
  const words = parts.slice(1).map((p) => (/redirect|assignment/.test(p.type) ? undefined : resolveWord(p, vars)))
  if (words.some((w) => !w || !w.literal || w.value.startsWith('-'))) return undefined
  return words.map((w) => w!.value).join(' ')
}

function unknown(out: Word): void {
  out.value += UNKNOWN
  out.literal = false
}

function ansiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_, e: string) => {
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' }
    if (e[0] === 'x' || e[0] === 'u' || e[0] === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16))
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8))
    if (e[0] === 'c') return String.fromCharCode(e.charCodeAt(1) & 31)
    return simple[e] ?? e
  })
}
