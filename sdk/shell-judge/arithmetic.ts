// Variables that shell arithmetic assigns: `(( x = … ))`, `$(( x += 1 ))`, `$[ x++ ]`,
// `for (( i = 0; …; i++ ))` and `let 'x = …'`. Their values are numbers computed at run time, so
// variables.ts takes them as unknown (like `read x`), whatever the script assigned them before.

import type { Node, Parser } from 'web-tree-sitter'
import { resolveWord, UNKNOWN } from './words.ts'

/** Reports a variable assigned: its name, or undefined when the name is only known at run time (`(( $n = 1 ))`). */
type Add = (name: string | undefined) => void

/** Operators that assign to their left side (`==`, `!=`, `<=`, `>=` compare). */
const ASSIGNING = /^(?:[-+*/%&^|]|<<|>>|\*\*)?=$/

/** The variables a node assigns if it is an arithmetic context: `((…))`, `$((…))`, a C-style `for`, `let`. */
export function arithmeticTargets(node: Node, parser: Parser, add: Add): void {
  if (node.type === 'arithmetic_expansion' || (node.type === 'compound_statement' && node.child(0)?.type === '((')) walk(node, add)
  else if (node.type === 'c_style_for_statement') {
    // Its header only: the body is ordinary commands.
    const body = node.childForFieldName('body')
    for (const child of node.namedChildren) if (child && child.id !== body?.id) walk(child, add)
  } else if (node.type === 'command' && node.childForFieldName('name')?.text === 'let') letTargets(node, parser, add)
}

function walk(node: Node, add: Add): void {
  const op = node.childForFieldName('operator')?.type ?? ''
  if (node.type === 'binary_expression' && ASSIGNING.test(op)) target(node.childForFieldName('left'), add)
  else if ((node.type === 'postfix_expression' || node.type === 'unary_expression') && (op === '++' || op === '--')) target(node.namedChildren[0] ?? null, add)
  else if (node.type === 'variable_assignment') target(node.childForFieldName('name'), add)
  for (const child of node.namedChildren) if (child) walk(child, add)
}

/** `x`, `a[i]` (the array `a`); anything else names a variable only at run time. */
function target(node: Node | null, add: Add): void {
  const base = node?.type === 'subscript' ? node.childForFieldName('name') : node
  add(base && /^(?:variable_name|word)$/.test(base.type) && /^[A-Za-z_]\w*$/.test(base.text) ? base.text : undefined)
}

/**
 * `let EXPR…`: each argument is an arithmetic expression that tree-sitter leaves as a word, so it is
 * parsed as `((EXPR))`; a run-time part stands as `$U` (an expansion: a name made of it is unknown).
 */
function letTargets(node: Node, parser: Parser, add: Add): void {
  for (const arg of node.childrenForFieldName('argument')) {
    if (!arg) continue
    const tree = parser.parse(`((${resolveWord(arg, new Map()).value.replaceAll(UNKNOWN, '$U')}))`)
    if (!tree) return add(undefined)
    try {
      if (tree.rootNode.hasError) add(undefined)
      else walk(tree.rootNode, add)
    } finally {
      tree.delete()
    }
  }
}
