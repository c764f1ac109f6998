// Secrets never reach the model or the store through a run: tool results (whatever afterToolCall did),
// progress lines, the model request (whatever beforeModelRequest added), the user's input, the
// model's own answers and reasoning are cleared of every known secret; look-alikes pass untouched.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineExtension, type RunEvent } from 'agent/sdk'
import { chatRequests, runtimeFixture, toolsExtension } from './helpers.ts'

const ENV_KEY = 'sk-env-9f8e7d6c5b4a39281706'
const DOTENV_TOKEN = 'dot-token-0a1b2c3d4e5f6a7b'
const CONFIG_KEY = 'cfg-key-55aa66bb77cc88dd'
const LOOK_ALIKE = 'sk-env-9f8e7d6c5b4a39281707'

test('a tool result, a hook, the input and the answer carry no known secret to the model or the store', async (t) => {
  const leak = toolsExtension('leak-tools', [
    {
      name: 'leak',
      description: 'prints secrets',
      parameters: { type: 'object' },
      execute: ({ session }) => {
        session.progress?.(`progress ${DOTENV_TOKEN}`)
        return `OPENAI_API_KEY=${ENV_KEY}\nb64 ${Buffer.from(`DOT=${DOTENV_TOKEN}\n`).toString('base64')}\ncfg ${CONFIG_KEY}\nlook-alike ${LOOK_ALIKE}`
      },
    },
  ])
  const taps = defineExtension({
    name: 'leaky-taps',
    setup(api) {
      // A late afterToolCall tap and a beforeModelRequest tap cannot bring a secret back.
      api.hooks.afterToolCall.tap({ stage: 1000 }, (outcome) => ({ ...outcome, result: `${outcome.result}\nafter ${ENV_KEY}` }))
      api.hooks.beforeModelRequest.tap((request) => ({ ...request, messages: [...request.messages, { role: 'user', content: `memo ${CONFIG_KEY}` }] }))
    },
  })
  let turn = 0
  const { tk, runtime, model, sessions } = await runtimeFixture(t, {
    extensions: [leak, taps],
    env: { OPENAI_API_KEY: ENV_KEY },
    config: { custom_providers: [{ name: 'spare', base_url: 'http://127.0.0.1:9/v1', api_key: CONFIG_KEY }] },
    model: {
      respond: () => (turn++ === 0 ? { toolCalls: [{ id: 'c1', name: 'leak', arguments: {} }] } : { text: `I saw ${ENV_KEY}`, reasoning: `thinking about ${DOTENV_TOKEN}` }),
    },
  })
  writeFileSync(join(tk.home, '.env'), `SOME_TOKEN=${DOTENV_TOKEN}\n`)
  const events: RunEvent[] = []
  const result = await runtime.run({ input: `my key is ${ENV_KEY}`, onEvent: (e) => events.push(e) })

  const secrets = [ENV_KEY, DOTENV_TOKEN, CONFIG_KEY, Buffer.from(DOTENV_TOKEN).toString('base64').slice(0, 16)]
  const sent = JSON.stringify(chatRequests(model).map((r) => r.body))
  for (const s of [ENV_KEY, DOTENV_TOKEN, CONFIG_KEY]) assert.ok(!sent.includes(s), `the model received ${s}`)
  assert.match(sent, /OPENAI_API_KEY=\[REDACTED:OPENAI_API_KEY\]/)
  assert.match(sent, /cfg \[REDACTED:custom_providers\[0\]\.api_key\]/)
  assert.match(sent, /after \[REDACTED:OPENAI_API_KEY\]/)
  assert.match(sent, /memo \[REDACTED:/)
  assert.ok(sent.includes(LOOK_ALIKE), 'a look-alike value passes untouched')

  const stored = JSON.stringify(await sessions.messages(result.sessionId))
  for (const s of secrets) assert.ok(!stored.includes(s), `the store holds ${s}`)
  assert.ok(stored.includes(LOOK_ALIKE))
  assert.equal(result.answer, 'I saw [REDACTED:OPENAI_API_KEY]')
  assert.equal(result.lastReasoning, 'thinking about [REDACTED:SOME_TOKEN]')
  const progress = events.find((e) => e.type === 'tool.progress') as { text: string }
  assert.equal(progress.text, 'progress [REDACTED:SOME_TOKEN]')
  // Streamed deltas (8 characters each here) are cleared across their cuts too.
  const streamed = events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text)
  assert.ok(streamed.length >= 2, JSON.stringify(events.map((e) => e.type)))
  assert.ok(streamed.every((text) => !text.includes(ENV_KEY.slice(0, 8))), JSON.stringify(streamed))
  assert.equal(streamed.join(''), result.answer)
  assert.equal(events.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text).join(''), result.lastReasoning)
  const end = events.find((e) => e.type === 'tool.end') as { result: string }
  assert.ok(!secrets.some((s) => end.result.includes(s)))
})

test('when the secrets cannot be read, the tool output is withheld (fail closed)', async (t) => {
  let turn = 0
  let fail = false
  const { tk, runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('echo-tools', [{ name: 'echo', description: 'echo', parameters: { type: 'object' }, execute: () => ((fail = true), 'some output') }])],
    model: { respond: () => (turn++ === 0 ? { toolCalls: [{ id: 'c1', name: 'echo', arguments: {} }] } : { text: 'done' }) },
  })
  const settings = tk.kernel.settings
  const original = settings.secretEntries
  settings.secretEntries = function (this: typeof settings) {
    if (fail) throw new Error('cannot read .env')
    return original.call(this)
  }
  t.after(() => void (settings.secretEntries = original))
  // Reading fails from the tool's execution until its result event: exactly while the result is cleared.
  const result = await runtime.run({ input: 'go', onEvent: (e) => void (e.type === 'tool.end' && (fail = false)) })
  assert.equal(result.answer, 'done')
  const tool = chatRequests(model)[1]!.body.messages.find((m: any) => m.role === 'tool')
  assert.match(tool.content, /^Error: output withheld: the known secrets could not be read to redact it \(cannot read \.env\)/)
  assert.ok(!tool.content.includes('some output'))
})

test('a session stored before its secret was known is cleared when loaded: the summary model of compression sees no secret', async (t) => {
  const late = 'late-secret-0a1b2c3d4e5f6071'
  const isSummary = (body: any) => String(body.messages?.[0]?.content ?? '').startsWith('You summarise')
  const measured = (body: any, text: string) => ({ text, usage: { prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4), completion_tokens: 5 } })
  const { tk, runtime, model } = await runtimeFixture(t, {
    config: { model: { context_length: 1000 }, compression: { threshold: 0.5, keep_recent: 1 } },
    model: { respond: (body) => measured(body, isSummary(body) ? 'SUMMARY' : 'noted') },
  })
  const first = await runtime.run({ input: `the value is ${late} ${'a'.repeat(1200)}` })
  // Only now does the value become a known secret.
  writeFileSync(join(tk.home, '.env'), `LATE_TOKEN=${late}\n`)
  await runtime.run({ input: `more ${'p'.repeat(600)}`, sessionId: first.sessionId })
  const later = chatRequests(model).slice(1)
  assert.ok(later.some((r) => isSummary(r.body)), 'compression ran')
  for (const r of later) assert.ok(!JSON.stringify(r.body).includes(late), JSON.stringify(r.body).slice(0, 300))
})
