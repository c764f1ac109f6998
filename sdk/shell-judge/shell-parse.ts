// Shell parsing for the approvals guard: loads tree-sitter-bash (wasm) once, on the first assessment,
// and flattens a script into the simple commands it would run, through every construct (pipelines,
// lists, subshells, compound commands, functions, substitutions, heredocs), with words resolved.

import { createRequire } from 'node:module'
import type { Node, Parser as TSParser } from 'web-tree-sitter'
import { collectVars } from './variables.ts'
import { resolveWord, type Vars, type Word } from './words.ts'

export { UNKNOWN, type Word } from './words.ts'

/** Where a command's standard input comes from, as far as the script says. */
export type Stdin =
  | { kind: 'pipe' }
  | { kind: 'text'; text: Word } // heredoc or here-string
  | { kind: 'file'; target: Word } // `< file` (a process substitution is a Word with procSub)

export interface Redirect {
  op: string
  target: Word
}

export interface SimpleCommand {
  /** Program and arguments after prefix assignments (`A=1 rm` → rm). */
  words: Word[]
  redirects: Redirect[]
  stdin?: Stdin
  /** Part of a pipeline of two or more, or run in the background (`&`). */
  inPipeline: boolean
  background: boolean
  /** The function whose body holds this command, if any. */
  inFunction?: string
}

export interface ParsedScript {
  commands: SimpleCommand[]
  /** Redirections anywhere in the script (also those tree-sitter hangs on lists). */
  redirects: Redirect[]
  /** Variable assignments anywhere (`A=1 cmd`, `A=1`, `export A=1`), for variables that carry commands. */
  assignments: Array<{ name: string; value: Word }>
  /** Tree-sitter reported ERROR or MISSING nodes: the shell would read it differently or not at all. */
  hasError: boolean
}

let loading: Promise<TSParser> | undefined

/** The parser, loaded once and lazily (never at startup); a load failure rejects every assessment. */
export function shellParser(): Promise<TSParser> {
  loading ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter')
    await Parser.init()
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')
    const parser = new Parser()
    parser.setLanguage(await Language.load(wasm))
    return parser
  })()
  loading.catch(() => (loading = undefined))
  return loading
}

interface Ctx {
  stdin?: Stdin
  inPipeline: boolean
  background: boolean
  inFunction?: string
}

const PLAIN: Ctx = { inPipeline: false, background: false }
const SUBSTITUTIONS = new Set(['command_substitution', 'process_substitution'])
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect'])
const STATEMENTS = new Set(['subshell', 'compound_statement'])

/**
 * Parses `source` with a loaded parser and flattens it; `stdin`: what the whole script reads (`curl |
 * sh -c '…'`); `positional`: its `$0 $1 …` (`sh -c 'rm -rf "$1"' _ /`), used unless it shifts or sets them.
 */
export function parseScript(parser: TSParser, source: string, stdin?: Stdin, positional?: Word[]): ParsedScript {
  const tree = parser.parse(source)
  if (!tree) return { commands: [], redirects: [], assignments: [], hasError: true }
  try {
    const out: ParsedScript = { commands: [], redirects: [], assignments: [], hasError: tree.rootNode.hasError }
    const seed: Vars = new Map()
    if (positional?.length && !/\b(?:shift|set|getopts)\b/.test(source)) {
      positional.forEach((w, n) => seed.set(String(n), w.literal ? w.value : null))
      const args = positional.slice(1)
      seed.set('@', args.every((w) => w.literal) ? args.map((w) => w.value).join(' ') : null)
      seed.set('*', seed.get('@')!)
    }
    const vars = collectVars(tree.rootNode, parser, seed)
    new Walker(out, vars).statements(tree.rootNode, { ...PLAIN, stdin })
    return out
  } finally {
    tree.delete()
  }
}

class Walker {
  constructor(
    private readonly out: ParsedScript,
    private readonly vars: Vars,
  ) {}

  /** Any node: statements run in order; `&` after one puts it in the background. */
  statements(node: Node, ctx: Ctx): void {
    const children = node.children
    for (let i = 0; i < children.length; i++) {
      const child = children[i]
      if (!child || !child.isNamed) continue
      const background = ctx.background || children[i + 1]?.type === '&'
      this.node(child, { ...ctx, background })
    }
  }

  node(node: Node, ctx: Ctx): void {
    switch (node.type) {
      case 'command':
        return this.command(node, ctx)
      case 'pipeline': {
        const parts = node.namedChildren.filter((c): c is Node => c !== null)
        parts.forEach((part, i) => this.node(part, { ...ctx, inPipeline: true, stdin: i === 0 ? ctx.stdin : { kind: 'pipe' } }))
        return
      }
      case 'redirected_statement':
        return this.redirected(node, ctx)
      case 'function_definition': {
        const name = node.childForFieldName('name')
        const body = node.childForFieldName('body')
        if (body) this.node(body, { ...PLAIN, inFunction: name ? resolveWord(name, this.vars).value : undefined })
        return
      }
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        this.redirect(node)
        return
      case 'command_substitution':
        return this.statements(node, { ...PLAIN, inFunction: ctx.inFunction })
      case 'process_substitution':
        // `>(cmd)` reads what the outer command writes: like the right side of a pipe.
        return this.statements(node, { ...PLAIN, inFunction: ctx.inFunction, stdin: node.child(0)?.type === '>(' ? { kind: 'pipe' } : undefined })
      case 'variable_assignment':
        return this.assignment(node, ctx)
      case 'declaration_command':
        for (const child of node.namedChildren) {
          if (child?.type === 'variable_assignment') this.assignment(child, ctx)
          else if (child && SUBSTITUTIONS.has(child.type)) this.node(child, ctx)
          else if (child) this.substitutions(child, ctx)
        }
        return
      case 'unset_command':
      case 'test_command':
        return this.substitutions(node, ctx)
      default:
        // Lists, subshells, compound statements, if/while/for/case bodies, ERROR nodes: their statements,
        // and any substitution in their words (a `for` list, a `case` subject, a condition).
        return this.statements(node, ctx)
    }
  }

  assignment(node: Node, ctx: Ctx): void {
    const name = node.childForFieldName('name')?.text
    const value = node.childForFieldName('value')
    if (name) this.out.assignments.push({ name, value: value ? resolveWord(value, this.vars) : { value: '', literal: true } })
    this.substitutions(node, ctx)
  }

  /** Runs every command and process substitution found inside a word-like node. */
  substitutions(node: Node, ctx: Ctx): void {
    for (const child of node.namedChildren) {
      if (!child) continue
      if (SUBSTITUTIONS.has(child.type)) this.node(child, ctx)
      else if (REDIRECTS.has(child.type)) this.redirect(child)
      else this.substitutions(child, ctx)
    }
  }

  command(node: Node, ctx: Ctx, trailing: Word[] = []): void {
    const words: Word[] = []
    const redirects: Redirect[] = []
    let stdin = ctx.stdin
    for (const child of node.namedChildren) {
      if (!child) continue
      if (child.type === 'variable_assignment') this.assignment(child, ctx)
      else if (REDIRECTS.has(child.type)) {
        const r = this.redirect(child)
        if (r) redirects.push(...r.redirects)
        stdin = r?.stdin ?? stdin
      } else if (STATEMENTS.has(child.type)) {
        this.node(child, ctx) // `time (ls)`: tree-sitter hangs the subshell on the `time` command
      } else {
        const target = child.type === 'command_name' ? (child.namedChildren[0] ?? child) : child
        words.push(resolveWord(target, this.vars))
        this.substitutions(child, ctx)
        if (SUBSTITUTIONS.has(target.type)) this.node(target, ctx)
      }
    }
    words.push(...trailing)
    this.out.commands.push({ words, redirects, stdin, inPipeline: ctx.inPipeline, background: ctx.background, inFunction: ctx.inFunction })
  }

  /** `body redirect…`: the input redirects become the body's stdin; output ones are recorded. */
  redirected(node: Node, ctx: Ctx): void {
    let stdin = ctx.stdin
    const later: Array<() => void> = []
    let piped = false
    for (const child of node.namedChildren) {
      if (!child || !REDIRECTS.has(child.type)) continue
      const r = this.redirect(child)
      stdin = r?.stdin ?? stdin
      // tree-sitter hangs what follows a heredoc start on the heredoc (`cat <<EOF | sh`, `<<EOF && x`).
      for (const rest of child.namedChildren) {
        if (!rest) continue
        if (rest.type === 'pipeline') piped = true
        if (rest.type === 'pipeline') later.push(() => rest.namedChildren.forEach((p) => p && this.node(p, { ...PLAIN, inPipeline: true, stdin: { kind: 'pipe' }, inFunction: ctx.inFunction })))
        else if (!rest.type.startsWith('heredoc_') && !REDIRECTS.has(rest.type)) later.push(() => this.node(rest, { ...PLAIN, inFunction: ctx.inFunction }))
        else if (REDIRECTS.has(rest.type)) this.redirect(rest)
      }
    }
    const body = node.childForFieldName('body')
    const bodyCtx = { ...ctx, stdin, inPipeline: ctx.inPipeline || piped }
    const dropped = body?.type === 'command' ? droppedBefore(node, body) : ''
    // tree-sitter leaves out a lone `-` just before a heredoc (`python3 - <<E`, `make -f - <<E`).
    if (body && dropped === '-') this.command(body, bodyCtx, [{ value: '-', literal: true }])
    else if (body) this.node(body, bodyCtx)
    // Any other text it left out is not known: the shell would run it.
    if (dropped && dropped !== '-') this.out.hasError = true
    for (const run of later) run()
  }

  /** Records a redirection; returns the stdin it provides, if it is an input one. */
  redirect(node: Node): { stdin?: Stdin; redirects: Redirect[] } | undefined {
    if (node.type === 'heredoc_redirect') {
      const body = node.namedChildren.find((c) => c?.type === 'heredoc_body')
      const start = node.namedChildren.find((c) => c?.type === 'heredoc_start')?.text ?? ''
      const quoted = /['"\\]/.test(start)
      const text: Word = body ? (quoted ? { value: body.text, literal: true } : resolveWord(body, this.vars)) : { value: '', literal: true }
      if (body && !quoted) this.substitutions(body, PLAIN)
      return { stdin: { kind: 'text', text }, redirects: [] }
    }
    const target = node.childForFieldName('destination') ?? node.namedChildren.find((c) => c && c.type !== 'file_descriptor' && !c.type.endsWith('_redirect'))
    if (!target) return undefined
    if (SUBSTITUTIONS.has(target.type)) this.node(target, PLAIN)
    else this.substitutions(target, PLAIN)
    const word = resolveWord(target, this.vars)
    if (node.type === 'herestring_redirect') return { stdin: { kind: 'text', text: word }, redirects: [] }
    // The operator is the text before the target: tree-sitter splits `<>` into `<` and an ERROR `>`.
    const descriptor = node.namedChildren.find((c) => c?.type === 'file_descriptor')
    const op = node.text.slice((descriptor?.endIndex ?? node.startIndex) - node.startIndex, target.startIndex - node.startIndex).replace(/\s+/g, '') || '>'
    const redirect = { op, target: word }
    this.out.redirects.push(redirect)
    return { stdin: op === '<' ? { kind: 'file', target: word } : undefined, redirects: [redirect] }
  }
}

/** Text of a redirected statement between its command and its first redirection that no node holds. */
function droppedBefore(statement: Node, body: Node): string {
  const first = statement.namedChildren.find((c) => c !== null && REDIRECTS.has(c.type))
  if (!first || first.startIndex <= body.endIndex) return ''
  return statement.text.slice(body.endIndex - statement.startIndex, first.startIndex - statement.startIndex).replace(/\\\r?\n/g, '').trim()
}
