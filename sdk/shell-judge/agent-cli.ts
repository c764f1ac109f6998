// The `agent` program, the agent's own CLI (also its bin through node or a package runner, see
// agent-bin.ts and runners.ts): an allowlist. Only commands that read pass (agent-commands.ts);
// every other one changes the agent's settings or state (`agent-config`), runs a nested agent
// (`agent-run`), lets someone in (`agent-access`) or stops it (`agent-self`). Words are read as the
// CLI reads them (yargs, strict): help and the version before `--` run nothing, an option first
// means chat. The server command of `agent mcp add NAME -- CMD …` is judged as a command.

import { AGENT_CLI, type ReadOnly } from './agent-commands.ts'
import { judgeAssignment } from './interpreters.ts'
import type { Judge, Rule } from './judge.ts'
import type { FindingKey } from './patterns.ts'
import { literalWord, type Word } from './words.ts'

/** Words yargs answers with help or the version, running no command (after `--` they are operands). */
const SHOWS = new Set(['--help', '-h', '--version', '-V'])

export const agent: Rule = (argv, j) => {
  const words = argv.slice(1)
  // The kernel then loads ./.agent/extensions, code from the working folder (it looks for the word anywhere).
  if (words.some((w) => w.value === '--project-extensions')) j.emit('agent-run')
  const end = words.findIndex((w) => w.value === '--')
  if ((end < 0 ? words : words.slice(0, end)).some((w) => w.literal && SHOWS.has(w.value))) return
  if (words[0]?.literal && words[0].value === 'help' && words.length === 1) return
  // `agent` alone, `agent -q …`, `agent -c NAME`: a chat.
  if (!words[0] || (words[0].literal && words[0].value.startsWith('-'))) return j.emit('agent-run')
  let command = AGENT_CLI
  let key: FindingKey = 'agent-config'
  const path: string[] = []
  let at = 0
  for (; command.sub && at < words.length; at++) {
    const w = words[at]!
    const next = w.literal && Object.hasOwn(command.sub, w.value) ? command.sub[w.value] : undefined
    if (!next) break
    command = next
    key = next.key ?? key
    path.push(w.value)
  }
  const rest = words.slice(at)
  if (!command.read || !onlyReads(command.read, rest)) j.emit(key)
  if (path[0] === 'mcp' && (path[1] === 'add' || path[1] === 'configure')) mcpServer(path[1] === 'add', rest, j)
}

/**
 * Whether the words after a read-only command keep it one: only its options (a boolean counts as
 * on when every mention turns it on: `--check`, `--check=true`, `--check true`), at most its
 * operands, every word known (a run-time word may be any option, or several words).
 */
function onlyReads(spec: ReadOnly, rest: Word[]): boolean {
  if (rest.some((w) => !w.literal)) return false
  const flags = new Set([...(spec.flags ?? []), 'project-extensions'])
  const on = new Map<string, boolean>()
  let operands = 0
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!.value
    if (w === '--') {
      operands += rest.length - i - 1
      break
    }
    if (!w.startsWith('-') || w === '-') {
      operands++
      continue
    }
    // Short options: the CLI has only -h and -V (help and version, handled before).
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(w)
    if (!long) return false
    const [, name, value] = long as unknown as [string, string, string | undefined]
    if (spec.values?.includes(name)) {
      if (value === undefined && rest[i + 1] && !rest[i + 1]!.value.startsWith('-')) i++
      continue
    }
    const flag = name.startsWith('no-') && flags.has(name.slice(3)) ? name.slice(3) : name
    if (!flags.has(flag)) return false
    let turnsOn = flag === name
    if (value !== undefined) turnsOn &&= value === 'true'
    else if (/^(?:true|false)$/.test(rest[i + 1]?.value ?? '')) turnsOn &&= rest[++i]!.value === 'true'
    on.set(flag, (on.get(flag) ?? true) && turnsOn)
  }
  return operands <= (spec.args ?? 0) && (!spec.when || spec.when((flag) => on.get(flag) === true))
}

/** Options of `agent mcp add|configure` that take a value; those that repeat take every word up to the next option (yargs arrays). */
const MCP_VALUES = ['url', 'cwd', 'timeout', 'connect-timeout']
const MCP_ARRAYS = ['env', 'header', 'include', 'exclude', 'unset-env']
const MCP_FLAGS = ['test', 'json', 'enable', 'disable', 'clear-filters', 'project-extensions']

/**
 * What `agent mcp add` makes the agent run at once and at every start: the server command (the
 * operands after NAME, and everything after `--`), judged as a command with its `--env` environment
 * (`LD_PRELOAD=…` is `inline-script`, as for `env`). Options the CLI does not know stay in the
 * command as written. Without an operand before `--`, NAME may be the first word after it: both
 * readings are judged. `agent mcp configure NAME --env …` sets the environment only.
 */
function mcpServer(add: boolean, rest: Word[], j: Judge): void {
  const operands: Word[] = []
  const env: Word[] = []
  let after: Word[] = []
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!
    if (w.value === '--') {
      after = rest.slice(i + 1)
      break
    }
    const [, name = '', attached] = /^--(?:no-)?([^=]+)(?:=(.*))?$/s.exec(w.value) ?? []
    const values: Word[] = attached !== undefined ? [{ ...w, value: attached }] : []
    if (MCP_VALUES.includes(name) && attached === undefined && rest[i + 1]) values.push(rest[++i]!)
    if (MCP_ARRAYS.includes(name) && attached === undefined) while (rest[i + 1] && !rest[i + 1]!.value.startsWith('-')) values.push(rest[++i]!)
    if (name === 'env') env.push(...values)
    if (!MCP_VALUES.includes(name) && !MCP_ARRAYS.includes(name) && !MCP_FLAGS.includes(name)) operands.push(w)
  }
  if (!add) {
    for (const w of env) {
      const eq = w.value.indexOf('=')
      if (eq > 0) judgeAssignment(w.value.slice(0, eq), { ...w, value: w.value.slice(eq + 1) }, j)
    }
    return
  }
  const name = operands.findIndex((w) => !w.value.startsWith('-'))
  const readings = name >= 0 ? [[...operands.slice(name + 1), ...after]] : [after, after.slice(1)]
  // Through `env`: a leading NAME=VALUE word (a repeated --env yargs did not take) is an assignment, not the program.
  for (const words of readings) if (words.length) j.argv([literalWord('env'), ...env, ...words], ['agent'])
}
