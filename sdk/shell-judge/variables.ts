// Which variables a script's words may be resolved with: those assigned a single literal value
// (`NAME=literal`) and set no other way anywhere in the script. Set otherwise (`read`, `printf -v`,
// `mapfile`, `getopts`, `unset`, `NAME[i]=`, `${NAME:=…}`, `declare -n`/`-i`, arithmetic) they are
// unknown everywhere, whatever order the script sets them in; a run-time name makes every one unknown.

import type { Node, Parser } from 'web-tree-sitter'
import { arithmeticTargets } from './arithmetic.ts'
import { resolveWord, type Vars, type Word } from './words.ts'
import { skipOptions } from './wrappers.ts'

/** `b=$a$a; c=$b$b; …` doubles: longer values are left unknown rather than built. */
const MAX_VALUE = 4096
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect'])

/** Plain assignments with one literal value resolve later expansions; anything else stays unknown. */
export function collectVars(root: Node, parser: Parser, seed: Vars = new Map()): Vars {
  const vars: Vars = new Map(seed)
  const { names, all } = otherwiseSet(root, parser)
  for (const name of names) vars.set(name, null)
  if (all) return new NoneKnown()
  const visit = (node: Node) => {
    if (node.type === 'variable_assignment') {
      const nameNode = node.childForFieldName('name')
      // `c[0]=rm`: an element of `c` (and `$c` is its element 0).
      const name = nameNode?.type === 'subscript' ? undefined : nameNode?.text
      const valueNode = node.childForFieldName('value')
      if (nameNode?.type === 'subscript') {
        const base = nameNode.childForFieldName('name')?.text
        if (base) vars.set(base, null)
      }
      if (name) {
        const value = valueNode ? resolveWord(valueNode, vars) : { value: '', literal: true }
        const before = vars.get(name)
        const known = value.literal && value.value.length <= MAX_VALUE && (before === undefined || before === value.value)
        vars.set(name, known ? value.value : null)
      }
    } else if (node.type === 'for_statement') {
      const name = node.childForFieldName('variable')?.text
      if (name) vars.set(name, null)
    }
    for (const child of node.namedChildren) if (child) visit(child)
  }
  visit(root)
  return vars
}

/** Every variable unknown (a script sets one whose name is only known at run time). */
class NoneKnown extends Map<string, string | null> {
  override get(): null {
    return null
  }
}

/** Options of builtins that set variables, which take a value (so the name is not that value). */
const READ_SPEC = { arg: 'deinNptu' }
const MAPFILE_SPEC = { arg: 'dnOsuCc' }

/**
 * Names of variables a script sets other than by `NAME=literal`: `read [-a] NAME…`, `mapfile`/
 * `readarray NAME`, `printf -v NAME`, `getopts SPEC NAME`, `unset NAME`, `NAME[i]=…`, `${NAME:=…}`
 * / `${NAME=…}`, `declare -n NAME=TARGET` (both: assigning the one sets the other), `declare -i
 * NAME` (its values are arithmetic), arithmetic (`(( x = … ))`, `let`). `all`: a name only known at
 * run time is set (`printf -v "$n" …`), so no variable is known.
 */
function otherwiseSet(root: Node, parser: Parser): { names: Set<string>; all: boolean } {
  const names = new Set<string>()
  let all = false
  const add = (word: Word | undefined) => {
    if (!word) return
    if (!word.literal) return void (all = true)
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.value)?.[0]
    if (name) names.add(name)
  }
  const visit = (node: Node) => {
    arithmeticTargets(node, parser, (name) => (name ? names.add(name) : (all = true)))
    if (node.type === 'command') {
      const words = node.namedChildren.filter((c): c is Node => c !== null && c.type !== 'variable_assignment' && !REDIRECTS.has(c.type)).map((c) => resolveWord(c.type === 'command_name' ? (c.namedChildren[0] ?? c) : c, new Map()))
      const name = (words[0]?.value ?? '').replace(/^.*\//, '')
      const at = (spec: { arg: string }) => skipOptions(words, 1, spec)
      if (name === 'read') {
        const i = at(READ_SPEC)
        words.slice(i).forEach(add)
        add(optionAfter(words.slice(0, i), 'a'))
      } else if (name === 'mapfile' || name === 'readarray') {
        const i = at(MAPFILE_SPEC)
        if (words[i]) add(words[i])
        else names.add('MAPFILE')
      } else if (name === 'printf') add(optionAfter(words, 'v'))
      else if (name === 'getopts') add(words[at({ arg: '' }) + 1])
    } else if (node.type === 'unset_command' && !node.namedChildren.some((c) => c?.type === 'word' && /^-[^-]*f/.test(c.text))) {
      for (const child of node.namedChildren) if (child && !/^-/.test(child.text)) add(resolveWord(child, new Map()))
    } else if (node.type === 'expansion' && node.children.some((c) => c?.type === ':=' || c?.type === '=')) {
      const target = node.namedChildren[0]
      const base = target?.type === 'subscript' ? target.childForFieldName('name') : target
      if (base?.type === 'variable_name') names.add(base.text)
    } else if (node.type === 'declaration_command' && node.namedChildren.some((c) => c?.type === 'word' && /^-[a-zA-Z]*[ni]/.test(c.text))) {
      for (const child of node.namedChildren) {
        if (child?.type === 'variable_name') names.add(child.text)
        if (child?.type !== 'variable_assignment') continue
        const ref = child.childForFieldName('name')
        if (ref) names.add(ref.text.replace(/\[.*$/s, ''))
        const value = child.childForFieldName('value')
        add(value ? resolveWord(value, new Map()) : undefined)
      }
    }
    for (const child of node.namedChildren) if (child) visit(child)
  }
  visit(root)
  return { names, all }
}

/** The value of short option `-x` (`-x V`, `-xV`, in a cluster `-rx V`) among the words before the operands. */
function optionAfter(words: Word[], letter: string): Word | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value
    if (w === '--' || !/^-[^-]/.test(w)) continue
    const k = w.indexOf(letter)
    if (k > 0) return k === w.length - 1 ? words[i + 1] : { ...words[i]!, value: w.slice(k + 1) }
  }
  return undefined
}
