// The subcommand map on Slack: `/agent <subcommand>` runs the registry's gateway command through the
// gateway like a typed one (same authorisation, arguments passed, replies in the channel); help and
// refusals go to the invoker only (the response URL); the list follows the registry, also when it
// changes while running; `agent gateway slack-manifest` derives the app manifest from the registry.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { defineExtension, slashCommands, type CommandDefinition } from '../../../sdk/index.ts'
import { createSlackAdapter } from '../../../extensions/slack/adapter.ts'
import { appManifest, BOT_EVENTS, BOT_SCOPES } from '../../../extensions/slack/manifest.ts'
import { runAgent, jsonOf } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { BOT_USER, CHANNELS, dmChannel, startFakeSlack, USERS } from './fake-slack.ts'
import { harness } from './harness.ts'

const echo = defineExtension({
  name: 'test-echo',
  setup(api) {
    api.commands.register({ name: 'echo', aliases: ['say'], category: 'Test', description: 'Repeats its arguments', argsHint: '<text>', scope: 'gateway', slash: (ctx) => ctx.reply(`echo: ${ctx.args} (from ${ctx.source?.userId} in ${ctx.source?.chatId})`) })
    api.commands.register({ name: 'cli-only', category: 'Test', description: 'CLI only', scope: 'cli', slash: () => undefined })
  },
})

/** The names `/agent help` lists: `/agent <name>` at the start of a line. */
const listed = (help: string) => [...help.matchAll(/^`\/agent ([^\s`]+)/gm)].map((m) => m[1]!).sort()

test('/agent <subcommand> runs the gateway command; replies go to the channel; the envelope is acked at once', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  const id = h.fake.slash({ from: 'alice', text: 'echo hello there' })
  assert.deepEqual(await h.posted(dmChannel('alice')), [`echo: hello there (from ${USERS.alice} in ${dmChannel('alice')})`])
  assert.ok(h.fake.acks.some((a) => a.envelope_id.startsWith('env-')), 'acknowledged')
  assert.deepEqual(h.fake.responses(id), [], 'nothing private for a command that ran')

  h.fake.slash({ from: 'bob', channel: 'general', text: 'say in the channel' })
  assert.deepEqual(await h.posted(CHANNELS.general), [`echo: in the channel (from ${USERS.bob} in ${CHANNELS.general})`])
  assert.equal(h.fake.posted.at(-1)!.thread_ts, undefined, 'slash commands have no thread')
  assert.deepEqual(h.prompts(), [], 'commands never reach the model')
})

test('/agent help lists exactly the registry gateway commands, privately; unknown and strangers are told privately', async (t) => {
  const h = await harness(t, { extensions: [echo] })
  await h.start()
  const help = h.fake.slash({ from: 'alice', text: 'help' })
  assert.ok(await h.fake.until(() => h.fake.responses(help).length > 0, 5000), h.log.lines.join('\n'))
  const text = h.fake.responses(help).join('\n')
  const expected = [...new Set([...slashCommands(h.k.kernel.registries.commands.list(), 'gateway').map((c) => c.name), 'help'])].sort()
  assert.deepEqual(listed(text), expected)
  for (const name of ['echo', 'new', 'sethome', 'help']) assert.ok(expected.includes(name), name)
  assert.match(text, /`\/agent echo &lt;text&gt;` - Repeats its arguments \(also say\)/)
  assert.ok(!text.includes('cli-only'))
  assert.equal(h.fake.ephemeral.find((e) => e.id === help)!.body.response_type, 'ephemeral')

  const bare = h.fake.slash({ from: 'alice', text: '' })
  assert.ok(await h.fake.until(() => h.fake.responses(bare).length > 0, 5000))
  assert.deepEqual(listed(h.fake.responses(bare).join('\n')), expected)

  const unknown = h.fake.slash({ from: 'alice', text: 'frobnicate now' })
  assert.ok(await h.fake.until(() => h.fake.responses(unknown).length > 0, 5000))
  assert.deepEqual(h.fake.responses(unknown), ['`/agent frobnicate` is not a command of this agent; `/agent help` lists them.'])

  const other = h.fake.slash({ from: 'alice', text: 'x', command: '/other' })
  assert.ok(await h.fake.until(() => h.fake.responses(other).length > 0, 5000))
  assert.deepEqual(h.fake.responses(other), ['This agent answers /agent, not /other.'])

  const stranger = h.fake.slash({ from: 'mallory', channel: 'general', text: 'echo let me in' })
  const strangerHelp = h.fake.slash({ from: 'mallory', channel: 'general', text: 'help' })
  assert.ok(await h.fake.until(() => h.fake.responses(stranger).length > 0 && h.fake.responses(strangerHelp).length > 0, 5000))
  assert.deepEqual(h.fake.responses(stranger), ['You are not authorised to use this agent.'])
  assert.deepEqual(h.fake.responses(strangerHelp), ['You are not authorised to use this agent.'])
  await sleep(200)
  assert.equal(h.fake.posted.length, 0, 'nothing in any channel')
})

test('private answers only go to a Slack response URL (or the configured API origin)', async (t) => {
  const h = await harness(t)
  await h.start()
  const elsewhere = await startFakeSlack({ botToken: 'xoxb-other', appToken: 'xapp-other' })
  t.after(() => elsewhere.close())
  h.fake.slash({ from: 'alice', text: 'help', responseUrl: `${elsewhere.origin}/respond/stolen` })
  assert.ok(await h.fake.until(() => h.log.lines.some((l) => l.includes('came without a Slack response URL')), 5000), h.log.lines.join('\n'))
  assert.equal(elsewhere.ephemeral.length, 0)
  const ok = h.fake.slash({ from: 'alice', text: 'help' })
  assert.ok(await h.fake.until(() => h.fake.responses(ok).length > 0, 5000))
})

test('the subcommand list follows the registry while running', async (t) => {
  const h = await harness(t)
  const commands: CommandDefinition[] = [{ name: 'first', category: 'Test', description: 'the first', scope: 'gateway', slash: (ctx) => ctx.reply('first ran') }]
  const adapter = createSlackAdapter({ config: { extra: { slash_command: '/helper', app_name: 'Agent', connect_timeout_seconds: 10, reconnect_watchdog_seconds: 300 } }, settings: h.k.kernel.settings, log: h.log, commands: () => commands })
  await adapter.start(h.context())
  t.after(() => adapter.stop())
  const helpOf = async () => {
    const id = h.fake.slash({ from: 'alice', text: 'help', command: '/helper' })
    assert.ok(await h.fake.until(() => h.fake.responses(id).length > 0, 5000))
    return [...h.fake.responses(id).join('\n').matchAll(/^`\/helper (\S+?)`/gm)].map((m) => m[1]).sort()
  }
  assert.deepEqual(await helpOf(), ['first', 'help'])
  commands.push({ name: 'second', category: 'Test', description: 'the second', scope: 'both', slash: (ctx) => ctx.reply('second ran') })
  assert.deepEqual(await helpOf(), ['first', 'help', 'second'])
})

test('the app manifest: Socket Mode, scopes, events, the slash command with the registry in its hint', () => {
  const commands: CommandDefinition[] = [
    { name: 'new', category: 'Session', description: 'New conversation', scope: 'gateway', slash: () => undefined },
    { name: 'model', category: 'Config', description: 'Model', slash: () => undefined },
  ]
  const manifest = appManifest(commands, { name: 'Helper', slash: '/helper' }) as any
  assert.equal(manifest.settings.socket_mode_enabled, true)
  assert.deepEqual(manifest.settings.event_subscriptions.bot_events, BOT_EVENTS)
  assert.deepEqual(manifest.oauth_config.scopes.bot, BOT_SCOPES)
  assert.deepEqual(manifest.features.slash_commands, [{ command: '/helper', description: 'Run an agent command (/helper help lists them)', usage_hint: '[help | model | new] [arguments]', should_escape: false }])
  assert.equal(manifest.features.app_home.messages_tab_enabled, true)
  assert.throws(() => appManifest(commands, { name: 'x'.repeat(36), slash: '/helper' }), /1 to 35 characters/)
  assert.equal(manifest.features.bot_user.display_name, 'helper')
  assert.equal((appManifest(commands, { name: 'Ops Bot (prod) ✨', slash: '/ops' }) as any).features.bot_user.display_name, 'ops-bot-prod')
  assert.equal((appManifest(commands, { name: '✨', slash: '/ops' }) as any).features.bot_user.display_name, 'agent')
})

test('`agent gateway slack-manifest` prints it as YAML or JSON, from the configured command and name', async (t) => {
  const home = tempDir(t)
  const yaml = await runAgent(['gateway', 'slack-manifest'], { home })
  assert.equal(yaml.code, 0, yaml.stderr)
  const parsed = YAML.parse(yaml.stdout)
  assert.equal(parsed.features.slash_commands[0].command, '/agent')
  assert.equal(parsed.display_information.name, 'Agent')
  assert.match(parsed.features.slash_commands[0].usage_hint, /^\[help \| /)
  const json = jsonOf(await runAgent(['gateway', 'slack-manifest', '--json', '--name', 'Ops Bot', '--command', 'ops'], { home }))
  assert.equal(json.features.slash_commands[0].command, '/ops')
  assert.equal(json.display_information.name, 'Ops Bot')
  assert.equal(json.features.bot_user.display_name, 'ops-bot')
  assert.equal(json.settings.socket_mode_enabled, true)
  const bad = await runAgent(['gateway', 'slack-manifest', '--command', '/no spaces'], { home })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /is not a Slack slash command/)
})

test('approval in a Slack thread: the prompt names `/agent approve`, `/agent deny` answers it, the turn goes on', async (t) => {
  // A harmless command the approval gate still flags (a recursive delete of a folder that does not exist).
  const command = 'rm -rf ./slack-approval-test-missing-folder'
  const h = await harness(t, {
    builtins: ['approvals', 'tools-terminal'],
    respond: (body) => {
      const last = body?.messages?.at(-1)
      if (last?.role === 'tool') return { text: `the tool said: ${String(last.content).slice(0, 300)}` }
      return { toolCalls: [{ name: 'terminal', arguments: { command } }] }
    },
  })
  await h.start()
  const ts = h.fake.message({ from: 'bob', channel: 'general', text: `<@${BOT_USER}> clean up the folder` })
  const [prompt] = await h.posted(CHANNELS.general, 1, ts)
  assert.match(prompt!, /Approval needed/)
  assert.match(prompt!, /Reply \/agent approve to run it once, \/agent approve session .* or \/agent deny\./)
  assert.ok(prompt!.includes(command))
  // Answered with the slash command from the channel (slash commands have no thread).
  h.fake.slash({ from: 'bob', channel: 'general', text: 'deny not now' })
  const denied = () => h.fake.posted.filter((p) => p.channel === CHANNELS.general && !p.thread_ts).map((p) => p.text)
  assert.ok(await h.fake.until(() => denied().length > 0, 10_000))
  assert.deepEqual(denied(), [`Denied: ${command}`], 'the command reply in the channel')
  const answer = (await h.posted(CHANNELS.general, 2, ts)).at(-1)!
  assert.match(answer, /^the tool said: .*not now/)
})
