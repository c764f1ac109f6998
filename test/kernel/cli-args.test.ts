// Arguments are checked before any command runs: a mistyped flag or command exits 2 with one line
// (and a "did you mean" when a real name is close) and changes nothing (no file written, no job
// added, no model called); the correct spelling still works.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { startScriptedModel } from 'agent/sdk/testing'
import { usageLine } from '../../kernel/cli/usage-hint.ts'
import type { CommandDefinition } from '../../sdk/types.ts'
import { jsonOf, runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'

const oneLine = (stderr: string) => {
  assert.equal(stderr.split('\n').filter(Boolean).length, 1, `one line expected:\n${stderr}`)
  assert.match(stderr, /^agent: /)
}

test('config set with a mistyped flag writes nothing; without it the value is saved', async (t) => {
  const home = tempDir(t)
  const config = join(home, 'config.yaml')
  const before = '_config_version: 10\n# my settings\ndisplay:\n  theme: dark\n'
  writeFileSync(config, before)
  const bad = await runAgent(['config', 'set', 'display.theme', 'light', '--dry-run'], { home })
  assert.equal(bad.code, 2)
  oneLine(bad.stderr)
  assert.match(bad.stderr, /unknown option --dry-run; see `agent config set --help`/)
  assert.doesNotMatch(bad.stderr, /dryRun/, 'the camelCase twin yargs adds is not reported')
  assert.equal(readFileSync(config, 'utf8'), before, 'config.yaml unchanged')

  const good = await runAgent(['config', 'set', 'display.theme', 'light'], { home })
  assert.equal(good.code, 0, good.stderr)
  assert.match(readFileSync(config, 'utf8'), /theme: light/)
})

test('cron add with --delivr adds no job and suggests --deliver; --deliver adds one', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '_config_version: 10\n')
  const bad = await runAgent(['cron', 'add', 'every 3h', 'x', '--delivr', 'log'], { home })
  assert.equal(bad.code, 2)
  oneLine(bad.stderr)
  assert.match(bad.stderr, /unknown option --delivr \(did you mean --deliver\?\)/)
  assert.deepEqual(jsonOf(await runAgent(['cron', 'list', '--json'], { home })), [], 'no job was created')

  const good = await runAgent(['cron', 'add', 'every 3h', 'x', '--deliver', 'log'], { home })
  assert.equal(good.code, 0, good.stderr)
  assert.equal(jsonOf(await runAgent(['cron', 'list', '--json'], { home })).length, 1)
})

test('chat with a bogus flag never calls the model; the right flags do', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '_config_version: 10\n')
  const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }
  const bad = await runAgent(['chat', '--bogus', '-q', 'hi'], { home, env })
  assert.equal(bad.code, 2)
  oneLine(bad.stderr)
  assert.match(bad.stderr, /unknown option --bogus; see `agent chat --help`/)
  assert.equal(bad.stdout, '')
  assert.equal(model.requests.length, 0, 'the scripted model received no request')

  const noChat = await runAgent(['--bogus-flag'], { home, env })
  assert.equal(noChat.code, 2, 'a bare unknown flag does not open a chat')
  oneLine(noChat.stderr)
  assert.match(noChat.stderr, /unknown option --bogus-flag/)
  assert.equal(model.requests.length, 0)

  model.enqueue({ text: 'hello there' })
  const good = await runAgent(['chat', '-q', 'hi'], { home, env })
  assert.equal(good.code, 0, good.stderr)
  assert.match(good.stdout, /hello there/)
  assert.ok(model.requests.length > 0)
})

test('a near-miss command gets a "did you mean"; a far one only the pointer to --help', async (t) => {
  const home = tempDir(t)
  const near = await runAgent(['chta'], { home })
  assert.equal(near.code, 2)
  oneLine(near.stderr)
  assert.equal(near.stderr, 'agent: unknown command "chta" (did you mean `agent chat`?); see `agent --help`\n')
  const sub = await runAgent(['cron', 'lsit'], { home })
  assert.equal(sub.code, 2)
  assert.equal(sub.stderr, 'agent: unknown command "lsit" (did you mean `agent cron list`?); see `agent cron --help`\n')
  const far = await runAgent(['frobnicate'], { home })
  assert.equal(far.stderr, 'agent: unknown command "frobnicate"; see `agent --help`\n')
})

const registry = [
  { name: 'chat', description: 'chat', cli: { options: { quiet: { type: 'boolean', alias: 'Q' }, query: { type: 'string', alias: 'q' }, secret: { type: 'boolean', hidden: true } } } },
  { name: 'cron', description: 'cron', cli: { subcommands: { add: { description: 'add', args: '<schedule> <prompt>', options: { deliver: { type: 'string' } } } } } },
] as unknown as CommandDefinition[]
const chat = registry[0]!.cli!

test('usageLine: flags, short flags, hidden options and missing arguments', () => {
  assert.equal(usageLine({ message: 'Unknown argument: quite', path: ['chat'], command: chat }, ['chat', '--quite'], registry), 'unknown option --quite (did you mean --quiet?); see `agent chat --help`')
  assert.equal(usageLine({ message: 'Unknown argument: x', path: ['chat'], command: chat }, ['chat', '-x'], registry), 'unknown option -x; see `agent chat --help`', 'no guess for a one-letter flag')
  assert.equal(usageLine({ message: 'Unknown argument: secrt', path: ['chat'], command: chat }, ['chat', '--secrt'], registry), 'unknown option --secrt; see `agent chat --help`', 'hidden options are not suggested')
  assert.equal(usageLine({ message: 'Unknown argument: extra', path: ['chat'], command: chat }, ['chat', 'extra'], registry), 'unexpected argument "extra"; see `agent chat --help`')
  assert.equal(usageLine({ message: 'Unknown arguments: no-such, noSuch', path: ['chat'], command: chat }, ['chat', '--no-such'], registry), 'unknown option --no-such; see `agent chat --help`')
  const add = registry[1]!.cli!.subcommands!.add!
  assert.equal(usageLine({ message: 'Not enough non-option arguments: got 0, need at least 2', path: ['cron', 'add'], command: add }, ['cron', 'add'], registry), 'missing arguments; usage: agent cron add <schedule> <prompt>; see `agent cron add --help`')
  assert.equal(usageLine({ message: 'Invalid values:\n  Argument: x, Given: "y"', path: ['cron', 'add'], command: add }, [], registry), 'invalid values: Argument: x, Given: "y"; see `agent cron add --help`')
})
