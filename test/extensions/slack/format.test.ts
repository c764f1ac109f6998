// Pure parts of the Slack adapter: markdown → mrkdwn (escape-first, links checked), 4,000-character
// parts with balanced code fences, Slack markup made readable, mention stripping, the subcommand map,
// and the settings (tokens, ids, slash command name).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, type CommandDefinition, type Settings } from '../../../sdk/index.ts'
import { escapeMrkdwn, slackParts, toMrkdwn } from '../../../extensions/slack/format.ts'
import { readableText, stripBotMention } from '../../../extensions/slack/inbound.ts'
import { apiBase, appToken, behaviour, botToken, isTargetId, isTimestamp, slashCommandName } from '../../../extensions/slack/settings.ts'
import { responseUrl } from '../../../extensions/slack/slash-command.ts'
import { resolveSubcommand, subcommandHelp, subcommandNames, usageHint } from '../../../extensions/slack/subcommands.ts'

const fences = (part: string) => (part.match(/^```/gm) ?? []).length

function settingsOf(env: Record<string, string>): Settings {
  return { env: (name: string) => env[name], get: () => undefined } as unknown as Settings
}

test('markdown becomes mrkdwn: emphasis, strike, code, headings, lists, quotes, rules', () => {
  assert.equal(toMrkdwn('**bold**, *italic*, _also_, ~~gone~~ and `code`'), '*bold*, _italic_, _also_, ~gone~ and `code`')
  assert.equal(toMrkdwn('# Title with **bold**\n\ntext'), '*Title with bold*\n\ntext')
  assert.equal(toMrkdwn('- one\n- two\n  1. nested\n  2. more\n- [x] done\n- [ ] todo'), '• one\n• two\n    1. nested\n    2. more\n☑ done\n☐ todo')
  assert.equal(toMrkdwn('3. three\n4. four'), '3. three\n4. four')
  assert.equal(toMrkdwn('> quoted\n> lines'), '> quoted\n> lines')
  assert.equal(toMrkdwn('above\n\n---\n\nbelow'), 'above\n\n──────────\n\nbelow')
  assert.equal(toMrkdwn('line one  \nline two'), 'line one\nline two')
})

test('code blocks lose their language and keep their text (escaped); tables become code blocks', () => {
  assert.equal(toMrkdwn('```ts\nif (a < b && c > d) {}\n```'), '```\nif (a &lt; b &amp;&amp; c &gt; d) {}\n```')
  assert.equal(toMrkdwn('| name | n |\n|---|---|\n| apple | 12 |'), '```\nname  | n\n------+---\napple | 12\n```')
})

test('escape-first: model text can form no mention, command or foreign link', () => {
  assert.equal(escapeMrkdwn('a & b < c > d'), 'a &amp; b &lt; c &gt; d')
  assert.equal(toMrkdwn('hey <!channel> and <@U012345> <!here>'), 'hey &lt;!channel&gt; and &lt;@U012345&gt; &lt;!here&gt;')
  assert.equal(toMrkdwn('<b>raw html</b>'), '&lt;b&gt;raw html&lt;/b&gt;')
  // Harmless look-alikes stay links: http(s) and mailto, & escaped inside.
  assert.equal(toMrkdwn('[docs](https://example.com/a?b=1&c=2)'), '<https://example.com/a?b=1&amp;c=2|docs>')
  assert.equal(toMrkdwn('see https://example.com'), 'see <https://example.com>')
  assert.equal(toMrkdwn('[mail](mailto:a@example.com)'), '<mailto:a@example.com|mail>')
  // Refused targets are shown, not linked.
  assert.equal(toMrkdwn('[click](javascript:alert(1))'), 'click (javascript:alert(1))')
  assert.equal(toMrkdwn('[x](https://evil.example/|<!channel>)'), 'x (https://evil.example/|&lt;!channel&gt;)')
  assert.equal(toMrkdwn('[a|b](https://example.com)'), '<https://example.com|a¦b>')
  assert.equal(toMrkdwn('![chart](https://example.com/c.png)'), '<https://example.com/c.png|chart>')
})

test('command references: `/approve` in an answer becomes `/agent approve` (Slack would take /approve as its own command)', () => {
  const commands = { slash: '/agent', names: new Set(['approve', 'deny', 'new']) }
  assert.equal(
    toMrkdwn('Reply /approve to run it once, /approve session, or /deny. (/new)', { commands }),
    'Reply /agent approve to run it once, /agent approve session, or /agent deny. (/agent new)',
  )
  // Harmless look-alikes stay: paths, unknown names, code, URLs.
  assert.equal(toMrkdwn('See /usr/bin/new, /newer, `/approve` and https://x.example/deny', { commands }), 'See /usr/bin/new, /newer, `/approve` and <https://x.example/deny>')
  assert.equal(toMrkdwn('```\n/approve\n```', { commands }), '```\n/approve\n```')
  assert.equal(toMrkdwn('Reply /approve'), 'Reply /approve', 'only when asked')
})

test('parts: short text is one part, empty is none; long text splits within 4000 with balanced fences', () => {
  assert.deepEqual(slackParts('hello'), ['hello'])
  assert.deepEqual(slackParts(''), [])
  assert.deepEqual(slackParts('   \n\n'), [])
  const paragraphs = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}. ${'lorem ipsum dolor sit amet '.repeat(6)}`.trim())
  const prose = slackParts(paragraphs.join('\n\n'))
  assert.ok(prose.length > 1)
  for (const part of prose) {
    assert.ok(part.length <= 4000)
    assert.match(part, /^Paragraph \d+\./, 'each part starts at a paragraph')
  }
  assert.equal(prose.join('\n\n'), paragraphs.join('\n\n'), 'nothing lost')

  const lines = Array.from({ length: 300 }, (_, i) => `    value_${i} = compute(${i})  # step ${i}`)
  const parts = slackParts(`Here:\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nThat is all.`)
  assert.ok(parts.length >= 3)
  for (const part of parts) {
    assert.ok(part.length <= 4000)
    assert.equal(fences(part) % 2, 0, `unbalanced part: ${part.slice(0, 80)}`)
  }
  assert.match(parts[1]!, /^```\n {4}value_/, 'the next part reopens the block (no language)')
  assert.ok(parts.at(-1)!.endsWith('That is all.'))
  const code = parts.join('\n').split('\n').filter((l) => l.startsWith('    value_'))
  assert.deepEqual(code, lines, 'every code line once, in order')
})

test('inbound text: our mention stripped, Slack markup readable, entities decoded once', () => {
  assert.equal(stripBotMention('<@U0AGENTBOT> what now?', 'U0AGENTBOT'), 'what now?')
  assert.equal(stripBotMention('hey <@U0AGENTBOT|agent>, summarise', 'U0AGENTBOT'), 'hey, summarise')
  assert.equal(stripBotMention('<@U0AGENTBOT>: go', 'U0AGENTBOT'), 'go')
  assert.equal(stripBotMention('ask <@U0OTHER001>', 'U0AGENTBOT'), 'ask <@U0OTHER001>', 'other mentions kept')
  assert.equal(readableText('<@U1|alice> in <#C1|general> <!here> <!subteam^S1|devs>'), '@alice in #general @here @devs')
  assert.equal(readableText('<https://a.example|the page> and <https://b.example> and <mailto:x@y.z|x@y.z>'), 'the page (https://a.example) and https://b.example and x@y.z (mailto:x@y.z)')
  assert.equal(readableText('1 &lt; 2 &amp;&amp; 3 &gt; 2, literally &amp;lt;'), '1 < 2 && 3 > 2, literally &lt;')
})

const commands: CommandDefinition[] = [
  { name: 'model', aliases: ['m'], category: 'Config', description: 'Switch the model', argsHint: '<name>', scope: 'both', slash: () => undefined },
  { name: 'new', aliases: ['reset'], category: 'Session', description: 'Start a new conversation', scope: 'gateway', slash: () => undefined },
  { name: 'clear', category: 'Session', description: 'CLI only', scope: 'cli', slash: () => undefined },
  { name: 'doctor', category: 'Tools', description: 'not a slash command', cli: { run: () => undefined } },
]

test('the subcommand map: gateway commands and aliases, help, unknown words', () => {
  assert.deepEqual(resolveSubcommand(commands, 'model gpt-5 fast'), { kind: 'command', name: 'model', text: '/model gpt-5 fast' })
  assert.deepEqual(resolveSubcommand(commands, '  M  other '), { kind: 'command', name: 'model', text: '/m other' })
  assert.deepEqual(resolveSubcommand(commands, '/new'), { kind: 'command', name: 'new', text: '/new' })
  assert.deepEqual(resolveSubcommand(commands, 'reset'), { kind: 'command', name: 'new', text: '/reset' })
  assert.deepEqual(resolveSubcommand(commands, ''), { kind: 'help' })
  assert.deepEqual(resolveSubcommand(commands, 'help'), { kind: 'help' })
  const withHelp: CommandDefinition[] = [...commands, { name: 'help', category: 'Info', description: 'gateway help', slash: () => undefined }]
  assert.deepEqual(resolveSubcommand(withHelp, 'help'), { kind: 'help' }, 'the subcommand list, not the gateway /help')
  assert.deepEqual(resolveSubcommand(commands, 'clear'), { kind: 'unknown', word: 'clear' }, 'CLI-only commands are not subcommands')
  assert.deepEqual(resolveSubcommand(commands, 'doctor'), { kind: 'unknown', word: 'doctor' })
  assert.deepEqual(resolveSubcommand(commands, 'constructor'), { kind: 'unknown', word: 'constructor' }, 'no prototype keys')
  assert.deepEqual(subcommandNames(commands), ['help', 'model', 'new'])
  const help = subcommandHelp(commands, '/agent')
  assert.match(help, /`\/agent model <name>` - Switch the model \(also m\)/)
  assert.match(help, /`\/agent new` - Start a new conversation \(also reset\)/)
  assert.match(help, /`\/agent help` - this list/)
  assert.doesNotMatch(help, /clear|doctor/)
  assert.equal(usageHint(commands), '[help | model | new] [arguments]')
  const many = Array.from({ length: 40 }, (_, i): CommandDefinition => ({ name: `command${i}`, category: 'X', description: 'x', slash: () => undefined }))
  const hint = usageHint(many)
  assert.ok(hint.length <= 100 && hint.startsWith('[help | command0 | ') && hint.endsWith(' | …] [arguments]'), hint)
})

test('settings: tokens by prefix (never echoed), ids, base URL, slash command name, mention rules', () => {
  const ok = settingsOf({ SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_APP_TOKEN: 'xapp-1-A-2-def' })
  assert.equal(botToken(ok, 'x'), 'xoxb-1-2-abc')
  assert.equal(appToken(ok, 'x'), 'xapp-1-A-2-def')
  const swapped = settingsOf({ SLACK_BOT_TOKEN: 'xapp-1-A-2-secretvalue', SLACK_APP_TOKEN: 'xoxb-1-2-secretvalue' })
  for (const read of [botToken, appToken]) {
    const error = (() => {
      try {
        read(swapped, 'the Slack adapter')
      } catch (e) {
        return e
      }
    })()
    assert.ok(error instanceof ConfigError)
    assert.doesNotMatch(error.message, /secretvalue/)
  }
  assert.throws(() => botToken(settingsOf({}), 'the Slack adapter'), /the Slack adapter needs SLACK_BOT_TOKEN/)
  assert.equal(apiBase(settingsOf({})), 'https://slack.com/api/')
  assert.equal(apiBase(settingsOf({ SLACK_API_BASE_URL: 'http://127.0.0.1:9/api' })), 'http://127.0.0.1:9/api/')
  assert.throws(() => apiBase(settingsOf({ SLACK_API_BASE_URL: 'ftp://x' })), /must be an http\(s\) URL/)
  assert.ok(isTargetId('C0123456789') && isTargetId('D0ALICE001') && isTargetId('U0ALICE001') && isTargetId('G0PRIVATE1'))
  assert.ok(!isTargetId('#general') && !isTargetId('c0123456789') && !isTargetId('C01'))
  assert.ok(isTimestamp('1712345678.000100') && !isTimestamp('1712345678') && !isTimestamp('x.1'))
  assert.equal(slashCommandName(undefined), '/agent')
  assert.equal(slashCommandName({ slash_command: 'Helper' }), '/helper')
  assert.throws(() => slashCommandName({ slash_command: '/two words' }), ConfigError)
  assert.throws(() => slashCommandName({ slash_command: `/${'x'.repeat(33)}` }), ConfigError)
  const extra = { slash_command: '/agent', app_name: 'Agent', connect_timeout_seconds: 30, reconnect_watchdog_seconds: 300 }
  assert.deepEqual(behaviour(settingsOf({}), extra), { requireMention: true, freeResponseChannels: new Set() })
  assert.deepEqual(behaviour(settingsOf({ SLACK_FREE_RESPONSE_CHANNELS: 'C0FREECHAN, C0OTHER001', SLACK_REQUIRE_MENTION: 'no' }), { ...extra, free_response_channels: ['C0IGNORED1'] }), { requireMention: false, freeResponseChannels: new Set(['C0FREECHAN', 'C0OTHER001']) })
  assert.deepEqual(behaviour(settingsOf({}), { ...extra, free_response_channels: 'C0FROMCONF' }).freeResponseChannels, new Set(['C0FROMCONF']))
  assert.throws(() => behaviour(settingsOf({ SLACK_FREE_RESPONSE_CHANNELS: '#general' }), extra), /"#general" is not a channel id/)
  assert.throws(() => behaviour(settingsOf({ SLACK_REQUIRE_MENTION: 'maybe' }), extra), /must be true or false/)
})

test('private answers go to Slack hooks or the configured API origin only', () => {
  const base = 'https://slack.com/api/'
  assert.equal(responseUrl('https://hooks.slack.com/commands/T1/1/abc', base), 'https://hooks.slack.com/commands/T1/1/abc')
  assert.equal(responseUrl('http://127.0.0.1:9/respond/x', 'http://127.0.0.1:9/api/'), 'http://127.0.0.1:9/respond/x')
  for (const refused of ['http://hooks.slack.com/commands/x', 'https://hooks.slack.com.evil.example/x', 'https://evil.example/hooks.slack.com', 'http://127.0.0.1:10/respond/x', 'not a url', 42, undefined]) {
    assert.equal(responseUrl(refused, base), undefined, String(refused))
  }
})
