// The gateway's slash commands on Telegram: the menu derived from the central registry (names
// sanitised to Telegram's rules, descriptions trimmed, at most 100) set for private chats and groups,
// not again while unchanged, again when the registry changes; a menu command (`/set_home@bot`) runs
// the registry's command through the gateway; a stranger's command runs nothing.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineExtension, slashCommands, type CommandDefinition } from '../../../sdk/index.ts'
import { createTelegramAdapter } from '../../../extensions/telegram/adapter.ts'
import { commandAddress, commandMenu, menuName } from '../../../extensions/telegram/menu.ts'
import { BOT, GROUPS, USERS } from './fake-telegram.ts'
import { harness } from './harness.ts'

const echo = defineExtension({
  name: 'test-echo',
  setup(api) {
    api.commands.register({ name: 'echo', category: 'Test', description: 'Repeats its arguments', argsHint: '<text>', scope: 'gateway', slash: (ctx) => ctx.reply(`echo: ${ctx.args} (from ${ctx.source?.userId} in ${ctx.source?.chatId})`) })
    api.commands.register({ name: 'say-hello', category: 'Test', description: 'Says hello', scope: 'gateway', slash: (ctx) => ctx.reply('hello!') })
    api.commands.register({ name: 'cli-only', category: 'Test', description: 'CLI only', scope: 'cli', slash: () => undefined })
  },
})

test('menu names follow Telegram rules; descriptions are trimmed; at most 100', () => {
  assert.equal(menuName('say-hello'), 'say_hello')
  assert.equal(menuName('Bad Name'), 'bad_name')
  assert.equal(menuName('---'), undefined)
  assert.equal(menuName('x'.repeat(40)), 'x'.repeat(32))
  const many: CommandDefinition[] = Array.from({ length: 130 }, (_, i) => ({ name: `cmd${String(i).padStart(3, '0')}`, category: 'Many', description: 'd'.repeat(300), scope: 'gateway', slash: () => undefined }))
  many.push({ name: 'say-hello', category: 'Test', description: 'hi', scope: 'both', slash: () => undefined }, { name: 'say_hello', category: 'Test', description: 'dup', scope: 'both', slash: () => undefined })
  const menu = commandMenu(many)
  assert.equal(menu.commands.length, 100)
  for (const c of menu.commands) {
    assert.match(c.command, /^[a-z0-9_]{1,32}$/)
    assert.ok(c.description.length >= 1 && c.description.length <= 256)
  }
  const pair = commandMenu(many.slice(-2))
  assert.deepEqual(pair.commands.filter((c) => c.command === 'say_hello'), [{ command: 'say_hello', description: 'dup' }], 'the name already valid wins')
  assert.equal(pair.renamed.get('say_hello'), undefined)
  assert.equal(commandMenu(many.slice(-2, -1)).renamed.get('say_hello'), 'say-hello')
})

test('commands addressed to us, to nobody and to another bot', () => {
  const renamed = new Map([['say_hello', 'say-hello']])
  assert.deepEqual(commandAddress('/say_hello@agent_test_bot  now', 'agent_test_bot', renamed), { kind: 'ours', text: '/say-hello  now', addressed: true })
  assert.deepEqual(commandAddress('/new', 'agent_test_bot', renamed), { kind: 'ours', text: '/new', addressed: false })
  assert.deepEqual(commandAddress('/new@Agent_Test_Bot', 'agent_test_bot', renamed), { kind: 'ours', text: '/new', addressed: true })
  assert.deepEqual(commandAddress('/new@helper_bot', 'agent_test_bot', renamed), { kind: 'other-bot' })
  assert.deepEqual(commandAddress('/new@agent_test_botx', 'agent_test_bot', renamed), { kind: 'other-bot' }, 'a look-alike bot name is another bot')
  assert.deepEqual(commandAddress('not /a command', 'agent_test_bot', renamed), { kind: 'none' })
})

test('the menu equals the registry\'s gateway commands, per scope, and is set once', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  const sets = () => h.fake.requests.filter((r) => r.method === 'setMyCommands')
  assert.ok(await h.fake.until(() => sets().length === 2, 5000), 'no setMyCommands')
  const expected = [...new Set([...slashCommands(h.k.kernel.registries.commands.list(), 'gateway').map((c) => menuName(c.name)!), 'help'])].sort()
  for (const scope of ['all_private_chats', 'all_group_chats']) {
    const menu = h.fake.menus.get(scope)!
    assert.deepEqual(menu.map((c) => c.command), expected, scope)
  }
  const menu = h.fake.menus.get('all_private_chats')!
  assert.ok(menu.some((c) => c.command === 'say_hello') && menu.some((c) => c.command === 'echo') && !menu.some((c) => c.command === 'cli_only'))
  assert.equal(menu.find((c) => c.command === 'echo')!.description, 'Repeats its arguments <text>')
  assert.ok(await h.fake.until(() => h.log.lines.some((l) => l.startsWith('info: set the Telegram command menu')), 5000))

  // A restart finds it current: reads, no second set.
  await h.adapter.stop()
  await h.adapter.start(h.context())
  assert.ok(await h.fake.until(() => h.log.lines.some((l) => /the Telegram command menu \(\d+ commands\) is current/.test(l)), 5000))
  assert.equal(sets().length, 2)
})

test('a command picked from the menu runs the registry command; strangers run nothing', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  h.fake.message({ from: 'alice', text: '/echo hello there' })
  assert.deepEqual(await h.posted(USERS.alice.id), [`echo: hello there (from ${USERS.alice.id} in ${USERS.alice.id})`])
  h.fake.message({ from: 'bob', group: 'general', text: `/say_hello@${BOT.username}` })
  assert.deepEqual(await h.posted(GROUPS.general.id), ['hello!'])
  h.fake.message({ from: 'bob', group: 'general', text: '/echo bare command in a group' })
  assert.deepEqual(await h.posted(GROUPS.general.id, 2), ['hello!', `echo: bare command in a group (from ${USERS.bob.id} in ${GROUPS.general.id})`])
  h.fake.message({ from: 'mallory', group: 'general', text: `/echo@${BOT.username} let me in` })
  h.fake.message({ from: 'alice', text: '/help' })
  const [, help] = await h.posted(USERS.alice.id, 2)
  assert.match(help!, /\/echo <text> - Repeats its arguments/)
  h.fake.message({ from: 'alice', text: '/start deep-link-payload' })
  assert.equal((await h.posted(USERS.alice.id, 3))[2], help, '/start (no registry command of that name) is the help')
  await sleep(200)
  assert.equal(h.fake.posted(GROUPS.general.id).length, 2)
  assert.deepEqual(h.prompts(), [], 'commands never reach the model')
})

test('a registry change while running sets the menu again (debounced)', async (t) => {
  const h = await harness(t)
  const commands: CommandDefinition[] = [{ name: 'first', category: 'Test', description: 'the first', scope: 'gateway', slash: () => undefined }]
  const adapter = createTelegramAdapter({ config: { extra: { command_menu: true, poll_timeout_seconds: 5, batch_window_ms: 0, conflict_retries: 5 } }, settings: h.k.kernel.settings, log: h.log, commands: () => commands })
  adapter.commandsChanged() // before start: nothing to do
  await adapter.start(h.context())
  t.after(() => adapter.stop())
  assert.ok(await h.fake.until(() => h.fake.menus.get('all_group_chats')?.length === 2, 5000))
  commands.push({ name: 'second-one', category: 'Test', description: 'the second', scope: 'both', slash: () => undefined })
  adapter.commandsChanged()
  adapter.commandsChanged()
  assert.ok(await h.fake.until(() => h.fake.menus.get('all_group_chats')?.length === 3, 6000))
  assert.deepEqual(h.fake.menus.get('all_private_chats')!.map((c) => c.command), ['first', 'help', 'second_one'])
  assert.equal(h.fake.requests.filter((r) => r.method === 'setMyCommands').length, 4, 'one set per scope per change, debounced')
})
