// Pure parts of the Discord adapter: 2,000-character parts with balanced code fences, mention
// stripping, the application commands derived from a registry, and the behaviour settings.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, type CommandDefinition, type Settings } from '../../../sdk/index.ts'
import { openFenceAfter } from '../../../sdk/index.ts'
import { discordParts } from '../../../extensions/discord/format.ts'
import { stripBotMention } from '../../../extensions/discord/inbound.ts'
import { behaviour } from '../../../extensions/discord/settings.ts'
import { applicationCommands, commandsDiffer, commandText } from '../../../extensions/discord/slash.ts'

const fences = (part: string) => (part.match(/^ {0,3}(`{3,}|~{3,})/gm) ?? []).length

test('short text is one part, unchanged; empty text is none', () => {
  assert.deepEqual(discordParts('hello\n\n  indented'), ['hello\n\n  indented'])
  assert.deepEqual(discordParts(''), [])
  assert.deepEqual(discordParts('x'.repeat(2000)), ['x'.repeat(2000)])
})

test('long prose splits at paragraph, then line, then word boundaries, every part within 2000', () => {
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}. ${'lorem ipsum dolor sit amet '.repeat(8)}`.trim())
  const parts = discordParts(paragraphs.join('\n\n'))
  assert.ok(parts.length > 1)
  for (const part of parts) {
    assert.ok(part.length <= 2000)
    assert.match(part, /^Paragraph \d+\./, 'each part starts at a paragraph')
  }
  assert.equal(parts.join('\n\n'), paragraphs.join('\n\n'), 'nothing lost')

  const words = discordParts('word '.repeat(1000).trim())
  for (const part of words) assert.match(part, /^word( word)*$/)
  assert.equal(words.join(' '), 'word '.repeat(1000).trim())
})

test('a code block cut by a split is closed and reopened with its language', () => {
  const lines = Array.from({ length: 150 }, (_, i) => `    value_${i} = compute(${i})  # step ${i}`)
  const text = `Here is the script:\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nThat is all.`
  const parts = discordParts(text)
  assert.ok(parts.length >= 3)
  for (const [i, part] of parts.entries()) {
    assert.ok(part.length <= 2000, `part ${i}: ${part.length}`)
    assert.equal(fences(part) % 2, 0, `part ${i} is unbalanced`)
    assert.equal(openFenceAfter(part), undefined)
  }
  assert.ok(parts.slice(1).every((p) => p.startsWith('```python\n') || p.startsWith('That is all')))
  // Indentation inside the code survives; every line arrives once.
  const code = parts.join('\n').split('\n').filter((l) => l.startsWith('    value_'))
  assert.deepEqual(code, lines)
  assert.ok(parts.at(-1)!.endsWith('That is all.'))
})

test('a fence never ends a part; tilde fences and longer fences are respected; hard cuts keep surrogate pairs', () => {
  const parts = discordParts(`intro\n~~~~\n${'a'.repeat(4500)}\n~~~~`)
  assert.ok(parts.every((p) => p.length <= 2000))
  assert.ok(parts[0]!.startsWith('intro\n~~~~\na'), 'the fence goes with its content')
  assert.ok(parts.every((p) => fences(p) % 2 === 0))
  assert.ok(parts.slice(1).every((p) => p.startsWith('~~~~\n')))
  assert.equal(parts.join('').replace(/~~~~|\n|intro/g, ''), 'a'.repeat(4500))

  const emoji = '😀'.repeat(1500)
  const cut = discordParts(emoji)
  assert.equal(cut.join(''), emoji)
  for (const part of cut) assert.doesNotMatch(part, /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
})

test('inline backticks are not fences; a fence closed right at a split is not reopened empty', () => {
  assert.equal(openFenceAfter('use ```inline``` here'), undefined)
  assert.deepEqual(openFenceAfter('```ts\ncode'), { marker: '```', info: 'ts' })
  assert.equal(openFenceAfter('```ts\ncode\n```'), undefined)
  const block = `\`\`\`\n${'x '.repeat(995)}\n\`\`\``
  const parts = discordParts(`${block}\n${'after '.repeat(100)}`)
  assert.ok(parts.every((p) => p.length <= 2000 && fences(p) % 2 === 0))
  assert.ok(!parts.some((p) => /^```\n```/.test(p)), JSON.stringify(parts.map((p) => p.slice(0, 12))))
})

test('our mention is stripped (with a leading comma or colon), other spacing kept', () => {
  const bot = '900000000000000001'
  assert.equal(stripBotMention(`<@${bot}> what time is it?`, bot), 'what time is it?')
  assert.equal(stripBotMention(`<@!${bot}>, summarise`, bot), 'summarise')
  assert.equal(stripBotMention(`hey <@${bot}>: look\n\`\`\`\n    indented\n\`\`\``, bot), 'hey: look\n```\n    indented\n```')
  assert.equal(stripBotMention(`<@&910000000000000009> role`, bot, ['910000000000000009']), 'role')
  assert.equal(stripBotMention('ask <@930000000000000002> too', bot), 'ask <@930000000000000002> too')
  assert.equal(stripBotMention(`<@${bot}>`, bot), '')
})

const command = (c: Partial<CommandDefinition> & { name: string }): CommandDefinition => ({ category: 'Test', description: `the ${c.name} command`, slash: () => undefined, ...c })

test('application commands: gateway slash commands Discord can name, args option from the hint, /help always', () => {
  const list = applicationCommands([
    command({ name: 'model', argsHint: '[name]' }),
    command({ name: 'queue', argsHint: '<prompt>', aliases: ['q'] }),
    command({ name: 'cli-only', scope: 'cli' }),
    command({ name: 'NotLower' }),
    command({ name: 'x'.repeat(33) }),
    command({ name: 'plain', description: 'd'.repeat(150) }),
    { name: 'no-slash', category: 'Test', description: 'cli subcommand only', cli: {} },
  ])
  assert.deepEqual(list.map((c) => c.name), ['help', 'model', 'plain', 'queue'])
  assert.deepEqual(list.find((c) => c.name === 'model')!.options, [{ type: 3, name: 'args', description: '[name]', required: false }])
  assert.deepEqual(list.find((c) => c.name === 'queue')!.options, [{ type: 3, name: 'args', description: '<prompt>', required: true }])
  assert.equal(list.find((c) => c.name === 'plain')!.description.length, 100)
  assert.ok(list.find((c) => c.name === 'plain')!.description.endsWith('…'))
  assert.equal(applicationCommands(Array.from({ length: 150 }, (_, i) => command({ name: `c${i}` }))).length, 100)
})

test('commandsDiffer ignores what Discord adds and the order; sees changed descriptions and options', () => {
  const wanted = applicationCommands([command({ name: 'a' }), command({ name: 'b', argsHint: '<x>' })])
  const fromDiscord = wanted.map((c, i) => ({ ...c, id: String(i), application_id: '1', version: '2', default_member_permissions: null, dm_permission: true, nsfw: false, options: c.options.map((o) => ({ ...o })) })).reverse()
  assert.equal(commandsDiffer(fromDiscord, wanted), false)
  assert.equal(commandsDiffer(fromDiscord.slice(1), wanted), true)
  assert.equal(commandsDiffer([{ ...fromDiscord[0]!, description: 'changed' }, fromDiscord[1]!], wanted), true)
  assert.equal(commandsDiffer(fromDiscord.map((c) => ({ ...c, options: [] })), wanted), true)
  assert.equal(commandText('model', '  gpt-x '), '/model gpt-x')
  assert.equal(commandText('new', null), '/new')
})

function settings(env: Record<string, string>): Settings {
  return { env: (name: string) => env[name] } as unknown as Settings
}

test('behaviour: mention required by default; the environment wins over platforms.discord.extra; bad values are ConfigErrors', () => {
  const extra = { slash_commands: true, connect_timeout_seconds: 60, reconnect_watchdog_seconds: 300 }
  assert.deepEqual(behaviour(settings({}), extra), { requireMention: true, freeResponseChannels: new Set() })
  assert.equal(behaviour(settings({}), { ...extra, require_mention: false }).requireMention, false)
  assert.equal(behaviour(settings({ DISCORD_REQUIRE_MENTION: 'true' }), { ...extra, require_mention: false }).requireMention, true)
  assert.equal(behaviour(settings({ DISCORD_REQUIRE_MENTION: 'no' }), extra).requireMention, false)
  assert.deepEqual([...behaviour(settings({ DISCORD_FREE_RESPONSE_CHANNELS: ' 920000000000000002, 920000000000000005 ,' }), extra).freeResponseChannels], ['920000000000000002', '920000000000000005'])
  assert.deepEqual([...behaviour(settings({}), { ...extra, free_response_channels: ['920000000000000007'] }).freeResponseChannels], ['920000000000000007'])
  assert.throws(() => behaviour(settings({ DISCORD_REQUIRE_MENTION: 'sometimes' }), extra), (e) => ConfigError.isInstance(e) && /DISCORD_REQUIRE_MENTION must be true or false/.test(e.message))
  assert.throws(() => behaviour(settings({ DISCORD_FREE_RESPONSE_CHANNELS: '#general' }), extra), (e) => ConfigError.isInstance(e) && /"#general" is not a channel id/.test(e.message))
})
