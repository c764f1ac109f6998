// The gateway's slash commands on Discord: registered as application commands derived from the
// central registry (once; not again while unchanged), invoked from Discord's menu through the gateway
// like a typed command (same authorisation, arguments passed), the deferred reply cleaned up; typed
// commands after a mention work too.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineExtension, slashCommands, type CommandDefinition } from '../../../sdk/index.ts'
import { createDiscordAdapter } from '../../../extensions/discord/adapter.ts'
import { APPLICATION_ID, BOT_ID, CHANNELS, dmChannel, startFakeDiscord } from './fake-discord.ts'
import { harness, TOKEN } from './harness.ts'

const echo = defineExtension({
  name: 'test-echo',
  setup(api) {
    api.commands.register({ name: 'echo', category: 'Test', description: 'Repeats its arguments', argsHint: '<text>', scope: 'gateway', slash: (ctx) => ctx.reply(`echo: ${ctx.args} (from ${ctx.source?.userId} in ${ctx.source?.chatId})`) })
    api.commands.register({ name: 'Bad Name', category: 'Test', description: 'not expressible on Discord', scope: 'gateway', slash: () => undefined })
    api.commands.register({ name: 'cli-only', category: 'Test', description: 'CLI only', scope: 'cli', slash: () => undefined })
  },
})

test('application commands are derived from the registry and registered once', async (t) => {
  const fake = await startFakeDiscord({ token: TOKEN })
  t.after(() => fake.close())
  const h = await harness(t, { fake, extensions: [echo] })
  await h.start()
  const puts = () => fake.requests.filter((r) => r.method === 'PUT' && r.path === `/applications/${APPLICATION_ID}/commands`)
  assert.ok(await fake.until(() => puts().length === 1, 5000), 'no PUT of the commands')
  const registered = puts()[0]!.body as any[]
  const expected = slashCommands(h.k.kernel.registries.commands.list(), 'gateway').map((c) => c.name).filter((n) => /^[-_a-z0-9]{1,32}$/.test(n))
  assert.deepEqual(registered.map((c) => c.name).sort(), [...new Set([...expected, 'help'])].sort())
  for (const name of ['echo', 'sethome', 'new', 'stop', 'help']) assert.ok(registered.some((c) => c.name === name), name)
  assert.ok(!registered.some((c) => c.name === 'cli-only' || c.name === 'Bad Name'))
  for (const command of registered) {
    assert.equal(command.type, 1)
    assert.ok(command.description.length >= 1 && command.description.length <= 100, command.name)
  }
  assert.deepEqual(registered.find((c) => c.name === 'echo').options, [{ type: 3, name: 'args', description: '<text>', required: true }])
  assert.deepEqual(registered.find((c) => c.name === 'sethome').options, [])
  // The fake records the PUT before it answers; the adapter logs once the answer is in.
  assert.ok(await fake.until(() => h.log.lines.includes(`info: registered ${registered.length} slash commands with Discord`), 5000))

  // A restart finds them current: one GET, no second PUT.
  await h.adapter.stop()
  await h.adapter.start(h.context())
  assert.ok(await fake.until(() => fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/commands')).length === 2, 5000))
  assert.ok(await fake.until(() => h.log.lines.some((l) => /the \d+ slash commands registered with Discord are current/.test(l)), 5000))
  assert.equal(puts().length, 1)
})

test('a slash command from the menu runs through the gateway like a typed one; the deferred reply is removed', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  assert.ok(await h.fake.until(() => h.fake.commands.length > 0, 5000))

  const token = h.fake.interaction({ name: 'echo', args: 'hello there', from: 'alice' })
  const [reply] = await h.posted(dmChannel('alice'))
  assert.equal(reply, `echo: hello there (from 930000000000000001 in ${dmChannel('alice')})`)
  assert.ok(await h.fake.until(() => h.fake.interactions.some((i) => i.token === token && i.kind === 'delete'), 5000), JSON.stringify(h.fake.interactions))
  const callback = h.fake.interactions.find((i) => i.token === token && i.kind === 'callback')!
  assert.deepEqual(callback.body, { type: 5, data: { flags: 64 } }, 'deferred, visible to the invoker only')

  h.fake.interaction({ name: 'echo', args: 'in the server', from: 'bob', channel: 'general' })
  assert.deepEqual(await h.posted(CHANNELS.general), [`echo: in the server (from 930000000000000002 in ${CHANNELS.general})`])

  h.fake.interaction({ name: 'help', from: 'alice' })
  const [, help] = await h.posted(dmChannel('alice'), 2)
  assert.match(help!, /\/echo <text> - Repeats its arguments/)
  assert.deepEqual(h.prompts(), [], 'commands never reach the model')
})

test('a stranger invoking a command is told, privately, and nothing runs', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  const token = h.fake.interaction({ name: 'echo', args: 'let me in', from: 'mallory', channel: 'general' })
  assert.ok(await h.fake.until(() => h.fake.interactions.some((i) => i.token === token && i.kind === 'edit'), 5000))
  assert.equal(h.fake.interactions.find((i) => i.token === token && i.kind === 'edit')!.body.content, 'You are not authorised to use this agent.')
  await sleep(200)
  assert.equal(h.fake.messages.length, 0)
})

test('a command Discord still offers but the registry no longer has is refused, not sent to the model', async (t) => {
  const h = await harness(t)
  await h.start()
  const token = h.fake.interaction({ name: 'vanished', args: 'x', from: 'alice' })
  assert.ok(await h.fake.until(() => h.fake.interactions.some((i) => i.token === token), 5000))
  const answer = h.fake.interactions.find((i) => i.token === token)!
  assert.equal(answer.kind, 'callback')
  assert.equal(answer.body.type, 4)
  assert.equal(answer.body.data.content, '/vanished is no longer a command of this agent.')
  assert.equal(answer.body.data.flags, 64)
  await sleep(200)
  assert.deepEqual(h.prompts(), [])
})

test('a typed command after a mention runs as a command; slash_commands: false registers nothing', async (t) => {
  const h = await harness(t, { extensions: [echo], extra: { slash_commands: false } })
  await h.start()
  h.fake.message({ from: 'bob', channel: 'general', content: `<@${BOT_ID}> /echo typed`, mentions: ['bot'] })
  assert.deepEqual(await h.posted(CHANNELS.general), [`echo: typed (from 930000000000000002 in ${CHANNELS.general})`])
  assert.equal(h.fake.requests.filter((r) => r.path.includes('/applications/')).length, 0)
})

test('a registry change while running registers the commands again (debounced)', async (t) => {
  const h = await harness(t)
  const commands: CommandDefinition[] = [{ name: 'first', category: 'Test', description: 'the first', scope: 'gateway', slash: () => undefined }]
  const adapter = createDiscordAdapter({ config: { extra: { slash_commands: true, connect_timeout_seconds: 10, reconnect_watchdog_seconds: 300 } }, settings: h.k.kernel.settings, log: h.log, commands: () => commands })
  adapter.commandsChanged() // before start: nothing to do
  await adapter.start(h.context())
  t.after(() => adapter.stop())
  assert.ok(await h.fake.until(() => h.fake.commands.length === 2, 5000))
  assert.deepEqual(h.fake.commands.map((c) => c.name).sort(), ['first', 'help'])
  commands.push({ name: 'second', category: 'Test', description: 'the second', scope: 'both', slash: () => undefined })
  adapter.commandsChanged()
  adapter.commandsChanged()
  assert.ok(await h.fake.until(() => h.fake.commands.length === 3, 6000), JSON.stringify(h.fake.commands.map((c) => c.name)))
  assert.equal(h.fake.requests.filter((r) => r.method === 'PUT').length, 2, 'one registration per change, debounced')
})
