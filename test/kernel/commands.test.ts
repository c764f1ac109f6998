// One registry entry per command; the CLI dispatcher, gateway known-command set, help texts,
// messenger menus and workspace-chat subcommand map are all derived from it.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createKernel } from '../../kernel/index.ts'
import { defineExtension, gatewayKnownCommands, helpText, messengerMenu, resolveSlash, workspaceSubcommandMap, type CommandDefinition } from '../../sdk/index.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const noop = () => {}
const commands: CommandDefinition[] = [
  { name: 'new', aliases: ['reset'], category: 'Session', description: 'Start a fresh session', slash: noop },
  { name: 'approve', category: 'Safety', description: 'Approve a pending command', argsHint: '[session|always]', scope: 'gateway', slash: noop },
  { name: 'statusbar', category: 'Display', description: 'Toggle the status bar', scope: 'cli', slash: noop },
  { name: 'reload-mcp', category: 'Tools', description: 'Reload MCP servers', slash: noop },
  { name: 'config', category: 'Configuration', description: 'CLI only, not a slash command', cli: { run: noop } },
]

test('gateway known-command set: names and aliases of gateway-scoped slash commands', () => {
  assert.deepEqual([...gatewayKnownCommands(commands)].sort(), ['approve', 'new', 'reload-mcp', 'reset'])
})

test('help texts differ per surface and group by category', () => {
  const cli = helpText(commands, 'cli')
  const gateway = helpText(commands, 'gateway')
  assert.match(cli, /Display:\n {2}\/statusbar - Toggle the status bar/)
  assert.doesNotMatch(cli, /approve/)
  assert.match(gateway, /\/approve \[session\|always\] - Approve a pending command/)
  assert.match(gateway, /\/new - Start a fresh session \(also \/reset\)/)
  assert.doesNotMatch(gateway, /statusbar|config/)
})

test('messenger menus use platform-safe names', () => {
  assert.deepEqual(messengerMenu(commands).map((e) => e.command), ['approve', 'new', 'reload_mcp'])
})

test('workspace-chat subcommand map resolves aliases to canonical names', () => {
  assert.deepEqual(workspaceSubcommandMap(commands), { approve: 'approve', new: 'new', reset: 'new', 'reload-mcp': 'reload-mcp' })
})

test('slash resolution: aliases, scope, unknown commands and plain text', () => {
  const reset = resolveSlash(commands, '/reset now', 'cli')
  assert.ok(reset && 'command' in reset)
  assert.equal(reset.command.name, 'new')
  assert.equal(reset.args, 'now')
  assert.deepEqual(resolveSlash(commands, '/approve', 'cli'), { unknown: 'approve' })
  assert.deepEqual(resolveSlash(commands, '/nope', 'gateway'), { unknown: 'nope' })
  assert.equal(resolveSlash(commands, 'hello /new', 'gateway'), undefined)
  assert.equal(resolveSlash(commands, '/usr/bin is a path', 'gateway'), undefined)
})

test('a duplicate alias across extensions is a startup error naming both', async (t) => {
  const home = tempDir(t)
  const kernel = createKernel({
    home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent',
    inline: [
      { definition: defineExtension({ name: 'one', setup: (api) => api.commands.register({ name: 'new', aliases: ['reset'], category: 'S', description: 'd', slash: noop }) }) },
      { definition: defineExtension({ name: 'two', setup: (api) => api.commands.register({ name: 'reset', category: 'S', description: 'd', slash: noop }) }) },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.match(kernel.extensions().find((e) => e.name === 'two')!.reason!, /command "reset" of extension "two" is already registered by extension "one"/)
})

test('the CLI dispatcher is derived from the registry: a user extension adds `agent <name>`', async (t) => {
  const home = tempDir(t)
  mkdirSync(join(home, 'extensions', 'greeter'), { recursive: true })
  writeFileSync(join(home, 'extensions', 'greeter', 'index.ts'), `
import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'greeter', setup(api) {
  api.commands.register({ name: 'greet', aliases: ['hi'], category: 'Demo', description: 'Say hello to someone', cli: {
    args: '<who>', options: { loud: { type: 'boolean', describe: 'Shout' } },
    run(ctx) { const text = 'hello ' + ctx.argv.who; ctx.out(ctx.argv.loud ? text.toUpperCase() : text) },
  } })
} })`)
  const help = await runAgent(['--help'], { home })
  assert.match(help.stdout, /agent greet <who>\s+Say hello to someone/)
  const run = await runAgent(['hi', 'ada', '--loud'], { home })
  assert.equal(run.stdout.trim(), 'HELLO ADA')
  const missing = await runAgent(['greet'], { home })
  assert.equal(missing.code, 2)
  assert.equal(missing.stderr, 'agent: missing arguments; usage: agent greet <who>; see `agent greet --help`\n')
})
