// The agent's own bin under another name: `node <path>/kernel/bin/agent.mjs …`, the file run
// directly, or through node_modules/.bin. Such a run is the `agent` program (agent-cli.ts judges it):
// otherwise `node ~/agent/kernel/bin/agent.mjs mcp add …` would pass where `agent mcp add …` does not.

import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { AGENT_CODE } from '../protected-paths.ts'
import { inCwd, programStarts, type Judge, type RunnerOptions } from './judge.ts'
import { pathShape } from './paths.ts'
import { literalWord, UNKNOWN, type Word } from './words.ts'

const BIN = join(AGENT_CODE, 'kernel', 'bin', 'agent.mjs')
/** The bin as installed and as its real path (an installation reached through a link). */
const SPELLINGS = new Set([resolve(BIN), realOr(BIN)])

function realOr(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/**
 * Whether a program or script path is the agent's bin: it resolves lexically (after the script's
 * `cd`s, from the command's working directory, `~` expanded) to this installation's bin; or, wherever
 * it is, it ends in `kernel/bin/agent.mjs` (another copy of the agent works on the same
 * agent home) or `node_modules/.bin/agent` (npm's link to it).
 */
export function isAgentBin(value: string, j: Judge): boolean {
  const tail = pathShape(value).segments.slice(-3).join('/')
  if (tail === 'kernel/bin/agent.mjs' || tail === 'node_modules/.bin/agent') return true
  const at = inCwd(value, j)
  if (at.includes(UNKNOWN) || !/^(?:\/|~\/|~$)/.test(at)) return false
  return SPELLINGS.has(resolve(at.startsWith('~') ? join(homedir(), at.slice(1)) : at))
}

/** node's options that take the next word; any other option may or may not (programStarts keeps both readings). */
const NODE: RunnerOptions = {
  switches: ['watch', 'no-warnings', 'inspect', 'inspect-brk', 'enable-source-maps', 'preserve-symlinks', 'trace-warnings', 'expose-gc', 'experimental-strip-types', 'no-deprecation', 'check', 'c', 'i', 'interactive'],
  values: ['r', 'require', 'import', 'loader', 'experimental-loader', 'C', 'conditions', 'title', 'env-file', 'input-type', 'redirect-warnings', 'disable-warning', 'watch-path', 'inspect-port', 'stack-size'],
}

/** `node [options] BIN ARGS…` (also bun): the agent's command line (`agent ARGS…`), when the script is the agent's bin. */
export function agentScript(argv: Word[], j: Judge): Word[] | undefined {
  const at = programStarts(argv, 1, NODE).find((i) => argv[i]!.literal && isAgentBin(argv[i]!.value, j))
  return at === undefined ? undefined : [literalWord('agent'), ...argv.slice(at + 1)]
}
