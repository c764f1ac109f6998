// The parts of an awk program that reach outside awk, found on its tokens (strings, regexes and
// comments are read as awk reads them, so `print "a|b"` or `/x>y/` is not a pipe or a redirect).
// There is no awk grammar here: a command or file is known when it is a lone string literal,
// otherwise it is only known that there is one.

interface Token {
  kind: 'string' | 'word' | 'op'
  text: string
}

export interface AwkEffects {
  /** Commands run: their text when a lone string literal; `piped` when awk prints into them. */
  commands: Array<{ text?: string; piped: boolean }>
  /** Files written by `print`/`printf` `>` or `>>` to a string literal. */
  writes: string[]
  /** Files read by `getline [var] <` a string literal. */
  reads: string[]
}

/** Words after which a `/` starts a regex rather than a division. */
const KEYWORDS = new Set(['print', 'printf', 'return', 'in', 'case', 'getline'])

function tokenize(src: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    const prev = out[out.length - 1]
    if (c === '\\' && src[i + 1] === '\n') i += 2
    else if (c === '\n' || c === ';') out.push({ kind: 'op', text: ';' }), i++
    else if (/\s/.test(c)) i++
    else if (c === '#') while (i < src.length && src[i] !== '\n') i++
    else if (c === '"') i = readString(src, i + 1, out)
    else if (c === '/' && !(prev && (prev.kind === 'string' || (prev.kind === 'word' && !KEYWORDS.has(prev.text)) || /^[)\]$]$/.test(prev.text)))) {
      // A regex: up to the next `/` outside a bracket expression.
      let bracket = false
      for (i++; i < src.length && (bracket || src[i] !== '/') && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++
        else if (src[i] === '[') bracket = true
        else if (src[i] === ']') bracket = false
      }
      i++
      out.push({ kind: 'word', text: '/regex/' })
    } else {
      const word = /^(?:[A-Za-z_]\w*|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)/.exec(src.slice(i))?.[0]
      const text = word ?? /^(?:\|&|\|\||&&|>>|>=|<=|==|!=|\+\+|--|\*\*=?|[-+*/%^!]=|[^])/.exec(src.slice(i))![0]
      out.push({ kind: word ? 'word' : 'op', text })
      i += text.length
    }
  }
  return out
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v' }

/** An awk string from `start` (after its `"`), unescaped, pushed as a token; returns where it ends. */
function readString(src: string, start: number, out: Token[]): number {
  let text = ''
  let i = start
  for (; i < src.length && src[i] !== '"'; i++) {
    if (src[i] !== '\\') text += src[i]
    else if (/[0-7]/.test(src[i + 1] ?? '')) {
      const digits = /^[0-7]{1,3}/.exec(src.slice(i + 1))![0]
      text += String.fromCharCode(parseInt(digits, 8))
      i += digits.length
    } else text += ESCAPES[src[++i] ?? ''] ?? src[i] ?? ''
  }
  out.push({ kind: 'string', text })
  return i + 1
}

/** A token that joins the one before it into a longer expression (concatenation, a call, a field). */
const joins = (t: Token | undefined) => t !== undefined && (t.kind !== 'op' || /^(?:[($!]|\+\+|--)$/.test(t.text))

export function awkEffects(program: string): AwkEffects {
  const tokens = tokenize(program)
  const out: AwkEffects = { commands: [], writes: [], reads: [] }
  let depth = 0
  // The parenthesis depth at which the current print statement started (-1: not in one).
  let print = -1
  tokens.forEach((t, k) => {
    const [prev, next] = [tokens[k - 1], tokens[k + 1]]
    // A lone string after this token (not the start of a longer expression).
    const lone = next?.kind === 'string' && !joins(tokens[k + 2]) ? next.text : undefined
    if (t.kind === 'word' && (t.text === 'print' || t.text === 'printf')) print = depth
    else if (t.text === '(') depth++
    else if (t.text === ')') depth--
    else if (/^[;{}]$/.test(t.text)) print = -1
    if (t.kind === 'word' && t.text === 'system' && next?.text === '(') {
      const arg = tokens[k + 2]
      out.commands.push({ text: arg?.kind === 'string' && tokens[k + 3]?.text === ')' ? arg.text : undefined, piped: false })
    } else if (t.text === '|' || t.text === '|&') {
      // `"cmd" | getline` reads from cmd; `print … | "cmd"` and a coprocess (`|&`) write into it.
      const getline = next?.text === 'getline'
      const before = prev?.kind === 'string' && !(tokens[k - 2] && (tokens[k - 2]!.kind !== 'op' || tokens[k - 2]!.text === ')')) ? prev.text : undefined
      out.commands.push({ text: getline ? before : lone, piped: !getline || t.text === '|&' })
    } else if ((t.text === '>' || t.text === '>>') && print >= 0 && print === depth) {
      if (lone !== undefined) out.writes.push(lone)
    } else if (t.text === '<' && (prev?.text === 'getline' || tokens[k - 2]?.text === 'getline') && lone !== undefined) out.reads.push(lone)
  })
  return out
}
