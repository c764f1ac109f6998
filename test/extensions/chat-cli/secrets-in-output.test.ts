// `agent chat` shows no known secret on stdout or stderr: the arguments of a tool call (the
// `tool_start` lines on stderr and `tool_calls[].arguments` of `--json`), and a failure's line (a
// model endpoint that echoes another configured secret, a base URL holding a password), in the
// one-shot run and in the interactive chat's error line. Ordinary text is shown unchanged.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type RunRequest, type RunResult, type Services, type Settings } from 'agent/sdk'
import { CliConversation, type ChatUi } from '../../../extensions/chat-cli/conversation.ts'
import { closedPort, setup } from './helpers.ts'

const DEPLOY_TOKEN = 'dep-cli-token-8b6d4f2a0c9e7b5d'
const TELEGRAM_BOT_TOKEN = '7654321098:AAHcli-bot-token-3f5a7c9e1b'

function commandingModel(command: string) {
  return {
    respond(body: any) {
      const done = body.messages.some((m: any) => m.role === 'tool')
      return done ? { text: 'deployed' } : { toolCalls: [{ id: 'call_deploy', name: 'terminal', arguments: { command } }] }
    },
  }
}

test('chat -q --json: a tool call carrying a known secret shows it redacted on stderr and stdout; the command ran with it', async (t) => {
  const command = `echo deploying with ${DEPLOY_TOKEN} > deployed.txt`
  const { home, project, agent } = await setup(t, commandingModel(command))
  writeFileSync(join(home, '.env'), `DEPLOY_TOKEN=${DEPLOY_TOKEN}\n`, { mode: 0o600 })
  const run = await agent(['chat', '-q', 'deploy', '--json'])
  assert.equal(run.code, 0, run.stderr)
  assert.ok(!run.stderr.includes(DEPLOY_TOKEN), `stderr holds the secret: ${run.stderr}`)
  assert.ok(!run.stdout.includes(DEPLOY_TOKEN), `stdout holds the secret: ${run.stdout}`)
  const shown = 'echo deploying with [REDACTED:DEPLOY_TOKEN] > deployed.txt'
  const start = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((e) => e.event === 'tool_start')
  assert.deepEqual(start.arguments, { command: shown })
  const result = JSON.parse(run.stdout)
  assert.deepEqual(result.tool_calls.map((c: any) => [c.name, c.arguments, c.ok]), [['terminal', { command: shown }, true]])
  // The tool got the arguments as the model sent them.
  assert.equal(readFileSync(join(project, 'deployed.txt'), 'utf8'), `deploying with ${DEPLOY_TOKEN}\n`)
})

test('chat -q --json: a tool call without a secret shows its arguments unchanged', async (t) => {
  const command = 'echo deploying with the usual settings'
  const { home, agent } = await setup(t, commandingModel(command))
  writeFileSync(join(home, '.env'), `DEPLOY_TOKEN=${DEPLOY_TOKEN}\n`, { mode: 0o600 })
  const run = await agent(['chat', '-q', 'deploy', '--json'])
  assert.equal(run.code, 0, run.stderr)
  const start = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((e) => e.event === 'tool_start')
  assert.deepEqual(start.arguments, { command })
  assert.deepEqual(JSON.parse(run.stdout).tool_calls[0].arguments, { command })
  // And the text form names the command as it is.
  const text = await agent(['chat', '-q', 'deploy'])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stderr, /terminal: echo deploying with the usual settings/)
})

test('chat -q: a model endpoint echoing another known secret in its 401 fails with a line that does not hold it', async (t) => {
  const { home, agent } = await setup(t, { respond: () => ({ status: 401, error: `invalid key; your bot token ${TELEGRAM_BOT_TOKEN} is not a model key` }) })
  writeFileSync(join(home, '.env'), `TELEGRAM_BOT_TOKEN=${TELEGRAM_BOT_TOKEN}\n`, { mode: 0o600 })
  const run = await agent(['chat', '-q', 'hello'])
  assert.equal(run.code, 1)
  assert.ok(!run.stderr.includes(TELEGRAM_BOT_TOKEN), run.stderr)
  // The rest of the server's words stay.
  assert.match(run.stderr, /^agent: custom: HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v1: invalid key; your bot token \*\*\* is not a model key/)
  // AGENT_DEBUG's stack is cleared too.
  const debug = await agent(['chat', '-q', 'hello'], { env: { AGENT_DEBUG: '1' } })
  assert.equal(debug.code, 1)
  assert.ok(!debug.stderr.includes(TELEGRAM_BOT_TOKEN), debug.stderr)
})

test('chat -q: a failure with no secret in it is printed unchanged', async (t) => {
  const { home, agent } = await setup(t, { respond: () => ({ status: 401, error: 'invalid key: check the key you configured' }) })
  writeFileSync(join(home, '.env'), `TELEGRAM_BOT_TOKEN=${TELEGRAM_BOT_TOKEN}\n`, { mode: 0o600 })
  const run = await agent(['chat', '-q', 'hello'])
  assert.equal(run.code, 1)
  assert.match(run.stderr, /^agent: custom: HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v1: invalid key: check the key you configured/)
})

test('chat -q: an unreachable base URL with user:password@ in it fails without the password', async (t) => {
  const { agent } = await setup(t)
  const port = await closedPort()
  for (const password of ['s3cret-url-pass-4d6f8b', 'pw12']) {
    const run = await agent(['chat', '-q', 'hello'], { env: { OPENAI_BASE_URL: `http://deploy:${password}@127.0.0.1:${port}/v1` } })
    assert.equal(run.code, 1)
    assert.ok(!run.stderr.includes(password), run.stderr)
    assert.match(run.stderr, new RegExp(`^agent: custom: .*http://deploy:\\*\\*\\*@127\\.0\\.0\\.1:${port}/v1`))
  }
})

/** The interactive chat's conversation with a runtime that fails as a provider echoing a secret would. */
function failingConversation(message: string) {
  const runtime = { run: async (_request: RunRequest): Promise<RunResult> => Promise.reject(new Error(message)) }
  const services = { get: (name: string) => (name === RUNTIME_SERVICE ? runtime : undefined), has: (name: string) => name === RUNTIME_SERVICE } as unknown as Services
  const settings = { get: () => undefined, secretValues: () => [TELEGRAM_BOT_TOKEN], secretEntries: () => [{ name: 'TELEGRAM_BOT_TOKEN', value: TELEGRAM_BOT_TOKEN }] } as unknown as Settings
  const chat = new CliConversation({ services, settings, tools: { entries: () => [] } as any, cwd: process.cwd() })
  const ended: unknown[] = []
  const background: Array<string | undefined> = []
  chat.ui = { turnStarted: () => undefined, event: () => undefined, turnEnded: (_r, error) => ended.push(error), backgroundDone: (task) => background.push(task.error), changed: () => undefined, statusBar: { visible: () => true, setVisible: () => undefined }, exit: () => undefined } as ChatUi
  return { chat, ended, background }
}

test('interactive chat: the error line of a failed turn or background task holds no known secret; other text stays', async () => {
  const { chat, ended, background } = failingConversation(`custom: HTTP 401 from http://x/v1: your bot token ${TELEGRAM_BOT_TOKEN} is not a model key`)
  chat.submit('hello')
  await chat.idle()
  assert.equal(ended.length, 1)
  assert.equal((ended[0] as Error).message, 'custom: HTTP 401 from http://x/v1: your bot token *** is not a model key')
  chat.background('later')
  while (!background.length) await new Promise((r) => setTimeout(r, 10))
  assert.equal(background[0], 'custom: HTTP 401 from http://x/v1: your bot token *** is not a model key')

  const plain = failingConversation('custom: HTTP 500 from http://x/v1: overloaded')
  plain.chat.submit('hello')
  await plain.chat.idle()
  assert.equal((plain.ended[0] as Error).message, 'custom: HTTP 500 from http://x/v1: overloaded')
})
