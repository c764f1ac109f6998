// Against a running `agent gateway run` (real runtime, scripted model, real grammy client) and a
// loopback fake of the Bot API: a stranger's private message gets a pairing code and runs nothing,
// then (approved with `agent gateway pair approve`) is answered, a voice note too (transcribed by the
// stt service's API provider against a fake); a group mention is answered and an
// unmentioned message ignored; the command menu equals the registry's gateway commands (as /help
// lists them), a menu command runs, and a hot reload adding a command updates the menu; a long answer
// arrives in valid parts; refused markup is resent as plain text; 409 and 429 are recovered; a cron
// job's answer reaches the home channel; SIGINT stops it cleanly without the token in the output. A
// rejected token exits 2 at once; so does a bot whose token lock a live process holds.

import assert from 'node:assert/strict'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { shortHash } from '../../../sdk/index.ts'
import { startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { menuName } from '../../../extensions/telegram/menu.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { startFakeTranscriptionApi } from '../stt/fake-stt.ts'
import { tempDir } from '../../helpers/temp.ts'
import { BOT, GROUPS, startFakeTelegram, TOKEN, USERS } from './fake-telegram.ts'
import { answerFor, lastUser, LONG_MARKER } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

const extension = (commands: string[]) => `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'pinger', setup(api) {
${commands.map((name) => `  api.commands.register({ name: '${name}', category: 'Test', description: 'Answers ${name}', scope: 'gateway', slash: (ctx) => ctx.reply('${name}: ' + ctx.args) })`).join('\n')}
} })
`

function writeConfig(home: string, stt?: string): void {
  const voice = stt ? { stt: { provider: 'api', api: { base_url: `${stt}/v1` } } } : {}
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, gateway: { human_delay: { min_ms: 0, max_ms: 20 } }, cron: { timezone: 'UTC', poll_seconds: 1 }, platforms: { telegram: { extra: { batch_window_ms: 300 } } }, ...voice }))
}

const STT_KEY = 'sk-transcription-key-0000'
const prompts = (model: ScriptedModelServer) => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body))
const naiveUtc = (instant: number) => new Date(instant).toISOString().slice(0, 19)

test('Telegram end to end through `agent gateway run`', async (t) => {
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)) }) })
  t.after(() => model.close())
  const transcription = await startFakeTranscriptionApi(STT_KEY, { text: 'remind me to water the plants' })
  t.after(() => transcription.close())
  const home = tempDir(t)
  writeConfig(home, transcription.url)
  const pinger = join(home, 'extensions', 'pinger', 'index.ts')
  mkdirSync(join(home, 'extensions', 'pinger'), { recursive: true })
  writeFileSync(pinger, extension(['ping']))
  const env = {
    ...scriptedModelEnv(model),
    TELEGRAM_BOT_TOKEN: TOKEN,
    TELEGRAM_API_BASE_URL: fake.apiBase,
    TELEGRAM_GROUP_ALLOWED_USERS: `${USERS.alice.id},${USERS.bob.id}`,
    TELEGRAM_HOME_CHANNEL: String(GROUPS.free.id),
    STT_API_KEY: STT_KEY,
  }
  const agent = startAgent(['gateway', 'run'], { home, logLevel: 'debug', env })
  t.after(() => agent.stop('SIGKILL'))
  await agent.waitFor(/gateway running \(adapters: [^)]*telegram/, 30_000)
  const posted = async (chat: number, count = 1) => {
    assert.ok(await fake.until(() => fake.posted(chat).length >= count, 20_000), `no answer in ${chat}: ${JSON.stringify(fake.sent)}\nstderr: ${agent.stderr().slice(-3000)}`)
    return fake.posted(chat)
  }

  await t.test('a stranger gets a pairing code and runs nothing; once approved, the private chat is answered', async () => {
    fake.message({ from: 'mallory', text: 'hello, who are you?' })
    const [pairing] = await posted(USERS.mallory.id)
    const code = /pair approve (\S+)/.exec(pairing!)?.[1]
    assert.ok(code, pairing)
    const approve = await runAgent(['gateway', 'pair', 'approve', code!], { home, env, logLevel: 'error' })
    assert.equal(approve.code, 0, approve.stderr)
    fake.message({ from: 'mallory', text: 'What is 2+2? (briefly)' })
    assert.deepEqual(await posted(USERS.mallory.id, 2), [pairing, 'answer to: What is 2+2? (briefly)'])
    assert.equal(fake.sent.at(-1)!.parseMode, 'MarkdownV2')
    assert.ok(fake.actions.some((a) => a.chatId === String(USERS.mallory.id) && a.action === 'typing'))
    assert.deepEqual(prompts(model), ['What is 2+2? (briefly)'])
  })

  await t.test('a voice note is transcribed (stt api provider) and answered', async () => {
    const before = fake.posted(USERS.mallory.id).length
    fake.message({ from: 'mallory', voice: true })
    assert.equal((await posted(USERS.mallory.id, before + 1)).at(-1), 'answer to: [voice message, transcribed]: remind me to water the plants')
    assert.equal(transcription.requests.length, 1)
  })

  await t.test('in a group: an unmentioned message is ignored, a mention answered', async () => {
    fake.message({ from: 'bob', group: 'general', text: 'humans talking' })
    fake.message({ from: 'bob', group: 'general', text: 'summarise the thread', mention: true })
    assert.deepEqual(await posted(GROUPS.general.id), ['answer to: summarise the thread'])
    await sleep(300)
    assert.deepEqual(prompts(model).slice(-1), ['summarise the thread'])
    assert.ok(!prompts(model).includes('humans talking'))
  })

  await t.test('the menu equals the gateway commands /help lists; a menu command runs; a hot reload updates the menu', async () => {
    assert.ok(await fake.until(() => fake.menus.has('all_private_chats') && fake.menus.has('all_group_chats'), 10_000))
    fake.message({ from: 'bob', group: 'general', text: `/help@${BOT.username}` })
    const help = (await posted(GROUPS.general.id, 2)).slice(1).join('\n')
    const listed = [...help.matchAll(/^\s+\/(\S+)/gm)].map((m) => menuName(m[1]!)!)
    const expected = [...new Set([...listed, 'help'])].sort()
    for (const name of ['ping', 'new', 'sethome', 'approve', 'deny', 'background']) assert.ok(expected.includes(name), `${name} in ${expected.join(' ')}`)
    for (const scope of ['all_private_chats', 'all_group_chats']) assert.deepEqual(fake.menus.get(scope)!.map((c) => c.command), expected, scope)

    fake.message({ from: 'bob', group: 'general', text: `/ping@${BOT.username} one` })
    assert.equal((await posted(GROUPS.general.id, 3)).at(-1), 'ping: one')

    writeFileSync(pinger, extension(['ping', 'pong-now']))
    assert.ok(await fake.until(() => fake.menus.get('all_group_chats')!.some((c) => c.command === 'pong_now'), 15_000), `menu not updated: ${agent.stderr().slice(-2000)}`)
    assert.ok(fake.menus.get('all_private_chats')!.some((c) => c.command === 'pong_now'))
    fake.message({ from: 'bob', group: 'general', text: `/pong_now@${BOT.username} two` })
    assert.equal((await posted(GROUPS.general.id, 4)).at(-1), 'pong-now: two')
  })

  await t.test('a long answer arrives in valid parts under 4,096 characters', async () => {
    const before = fake.posted(USERS.mallory.id).length
    fake.message({ from: 'mallory', text: `write the ${LONG_MARKER}` })
    await posted(USERS.mallory.id, before + 4)
    await sleep(500)
    const parts = fake.sent.filter((s) => s.chatId === String(USERS.mallory.id)).slice(before)
    assert.ok(parts.length >= 4, `${parts.length} parts`)
    for (const part of parts) {
      assert.equal(part.parseMode, 'MarkdownV2')
      assert.ok(part.plain.length <= 4096 && part.text.length <= 4096)
    }
    const read = parts.map((p) => p.plain).join('\n')
    for (let i = 0; i < 200; i++) assert.ok(read.includes(`    print("line ${i} of the program")`), `line ${i} intact`)
    assert.ok(parts.at(-1)!.plain.endsWith('The end.'))
  })

  await t.test('refused markup is resent as plain text', async () => {
    const before = fake.sent.length
    fake.fail('sendMessage', 1, { code: 400, description: "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'" })
    fake.message({ from: 'mallory', text: 'plain fallback please.' })
    assert.ok(await fake.until(() => fake.sent.length > before, 20_000))
    assert.deepEqual(fake.sent.slice(before).map((s) => [s.parseMode, s.text]), [[undefined, 'answer to: plain fallback please.']])
  })

  await t.test('409 Conflict and 429 are recovered', async () => {
    const conflict = { code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' }
    fake.fail('getUpdates', 2, conflict)
    fake.fail('sendMessage', 1, { code: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 })
    // The poll in flight returns with this message; the next two polls meet the conflict.
    fake.message({ from: 'mallory', text: 'during the conflict' })
    assert.ok(await fake.until(() => fake.requests.filter((r) => r.method === 'getUpdates' && r.status === 409).length === 2, 20_000))
    fake.message({ from: 'mallory', text: 'after the conflict' })
    const all = await posted(USERS.mallory.id, fake.posted(USERS.mallory.id).length + 1)
    assert.ok(await fake.until(() => fake.posted(USERS.mallory.id).includes('answer to: after the conflict'), 20_000), JSON.stringify(all))
    assert.ok(fake.posted(USERS.mallory.id).includes('answer to: during the conflict'))
    assert.ok(fake.requests.some((r) => r.method === 'sendMessage' && r.status === 429))
    assert.match(agent.stderr(), /Telegram answered 409 Conflict/)
    assert.match(agent.stderr(), /Telegram polling works again/)
  })

  await t.test('a cron job due in seconds delivers to the home channel', async () => {
    const add = await runAgent(['cron', 'add', naiveUtc(Date.now() + 4000), 'Write the daily report', '--deliver', 'telegram', '--name', 'daily'], { home, env, logLevel: 'error' })
    assert.equal(add.code, 0, add.stderr)
    assert.deepEqual(await posted(GROUPS.free.id), ['answer to: Write the daily report'])
  })

  await t.test('SIGINT stops it cleanly; the lock is released; the token never reaches the output', async () => {
    assert.equal(await agent.stop('SIGINT'), 0)
    const output = agent.stderr() + agent.stdout()
    assert.match(output, /\[telegram\] connected to Telegram as @agent_test_bot \(long polling\)/)
    assert.ok(!output.includes(TOKEN), 'the token appears in the output')
    assert.ok(!output.includes(TOKEN.split(':')[1]!), 'the token secret appears in the output')
    assert.doesNotMatch(output, /\n\s+at /, 'no stack traces')
    assert.deepEqual(readdirSync(join(home, 'locks')), [])
    assert.equal(fake.polling(), 0)
  })
})

test('a rejected token: `agent gateway run` exits 2 with one line, no retry loop, no token', async (t) => {
  const fake = await startFakeTelegram({ token: '7000000001:AAOtherTokenTelegramKnows_000000000000' })
  t.after(() => fake.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  const run = await runAgent(['gateway', 'run'], { home, timeoutMs: 30_000, env: { ...scriptedModelEnv(model), TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE_URL: fake.apiBase } })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('agent:'))
  assert.deepEqual(lines, ['agent: adapter "telegram" cannot start: Telegram rejected TELEGRAM_BOT_TOKEN (401 Unauthorized): get the current token from BotFather (/token) and update TELEGRAM_BOT_TOKEN'])
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace')
  assert.ok(!(run.stderr + run.stdout).includes(TOKEN))
  assert.deepEqual(fake.requests.map((r) => `${r.method} ${r.status}`), ['getMe 401'], 'one attempt, no retry loop')
})

test('a bot whose token lock a live process holds: `agent gateway run` exits 2 saying which process', async (t) => {
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  const model = await startScriptedModel()
  t.after(() => model.close())
  const home = tempDir(t)
  writeConfig(home)
  mkdirSync(join(home, 'locks'))
  // The lock's name is a hash of the token; this test process plays the other gateway.
  writeFileSync(join(home, 'locks', `telegram-${shortHash(TOKEN, 16)}.lock`), `${process.pid}\n`)
  const run = await runAgent(['gateway', 'run'], { home, timeoutMs: 30_000, env: { ...scriptedModelEnv(model), TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE_URL: fake.apiBase } })
  assert.equal(run.code, 2, `stderr: ${run.stderr}`)
  assert.match(run.stderr, new RegExp(`agent: adapter "telegram" cannot start: another agent gateway \\(pid ${process.pid}\\) already runs this Telegram bot`))
  assert.equal(fake.requests.filter((r) => r.method === 'getUpdates').length, 0)
})
