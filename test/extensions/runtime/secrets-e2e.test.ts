// Secrets never reach the model, state.db or a log, end to end: the real `agent chat -q` and the API
// server of `agent gateway run`, with a scripted model asking the terminal for the agent's own
// environment (/proc/$PPID/environ), `<agent_home>/.env`, a base64 copy of it and config.yaml.
// Non-secret values (OPENAI_BASE_URL, a variable of the same length as a key) pass untouched.

import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

const SECRETS = {
  OPENAI_API_KEY: 'sk-e2e-openai-7f3a9c2b5d8e1f40',
  API_SERVER_KEY: 'srv-e2e-key-2b4d6f8a0c1e3a5c',
  DEPLOY_TOKEN: 'dep-e2e-token-91a82b73c64d',
  ANTHROPIC_API_KEY: 'ant-e2e-key-5e6f7a8b9c0d1e2f', // only in .env
  CUSTOM: 'cp-e2e-custom-3c5e7a9b1d2f4a6c', // custom_providers[0].api_key in config.yaml
}
// Not secrets: same length and shape as a key, under a name that does not say "secret".
const LOOK_ALIKE = 'sk-e2e-public-7f3a9c2b5d8e1f4'

function setupHome(t: TestContext, model: ScriptedModelServer) {
  const home = tempDir(t, 'agent-home-')
  const project = tempDir(t, 'agent-project-')
  writeFileSync(join(home, '.env'), `ANTHROPIC_API_KEY=${SECRETS.ANTHROPIC_API_KEY}\nAPI_SERVER_KEY=${SECRETS.API_SERVER_KEY}\nAGENT_GREETING=hello-from-dotenv\n`, { mode: 0o600 })
  // The command judge flags reading a process's environment and the agent's .env; both allowed here so
  // the test exercises redaction.
  const approvals = { allowlist: ['process-environ', 'secret-read'] }
  // The terminal sandbox would hide the agent's process (its own /proc): off, so redaction is what is tested.
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ approvals, terminal: { sandbox: 'off' }, custom_providers: [{ name: 'spare', base_url: 'http://127.0.0.1:9/v1', api_key: SECRETS.CUSTOM, model: 'm' }] }))
  const env = {
    AGENT_INFERENCE_PROVIDER: 'custom',
    OPENAI_BASE_URL: model.url,
    AGENT_MODEL: 'scripted-model',
    OPENAI_API_KEY: SECRETS.OPENAI_API_KEY,
    DEPLOY_TOKEN: SECRETS.DEPLOY_TOKEN,
    PUBLIC_BUILD_ID: LOOK_ALIKE,
  }
  return { home, project, env }
}

/** The model runs each command through the terminal in turn, then answers with the last output (echoing whatever it got). */
function commandingModel(commands: string[]) {
  return {
    respond(body: any) {
      const results = body.messages.filter((m: any) => m.role === 'tool')
      if (results.length < commands.length) return { toolCalls: [{ id: `call_${results.length}`, name: 'terminal', arguments: { command: commands[results.length] } }] }
      return { text: `Here is what I found: ${results.map((r: any) => r.content).join('\n')}` }
    },
  }
}

const commands = (home: string) => [`tr '\\0' '\\n' < /proc/$PPID/environ`, `cat ${join(home, '.env')}`, `base64 -w0 < ${join(home, '.env')}`, `cat ${join(home, 'config.yaml')}`]

function assertClean(what: string, text: string) {
  for (const [name, value] of Object.entries(SECRETS)) {
    assert.ok(!text.includes(value), `${what} holds ${name}`)
    assert.ok(!text.includes(Buffer.from(value).toString('base64').slice(4, 20)), `${what} holds ${name} in base64`)
  }
}

/** Every text and blob of every table of state.db, and the raw bytes of the database and its WAL. */
function stateDbText(home: string): string {
  const Database = createRequire(import.meta.url)('better-sqlite3')
  const db = new Database(join(home, 'state.db'), { readonly: true })
  try {
    const parts: string[] = []
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]
    for (const table of tables) {
      for (const row of db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).all() as Record<string, unknown>[]) {
        for (const value of Object.values(row)) parts.push(Buffer.isBuffer(value) ? value.toString('latin1') : String(value))
      }
    }
    for (const file of ['state.db', 'state.db-wal']) if (existsSync(join(home, file))) parts.push(readFileSync(join(home, file)).toString('latin1'))
    return parts.join('\n')
  } finally {
    db.close()
  }
}

function logFiles(home: string): string {
  const dir = join(home, 'logs')
  return existsSync(dir) ? readdirSync(dir).map((f) => readFileSync(join(dir, f), 'latin1')).join('\n') : ''
}

function assertToolResults(model: ScriptedModelServer) {
  const bodies = model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body)
  const last = bodies.at(-1)
  const tools = last.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content))
  assert.equal(tools.length, 4, JSON.stringify(last.messages))
  // The environ dump: secrets marked by name, the rest intact.
  assert.match(tools[0], /OPENAI_API_KEY=\[REDACTED:OPENAI_API_KEY\]/)
  assert.match(tools[0], /DEPLOY_TOKEN=\[REDACTED:DEPLOY_TOKEN\]/)
  assert.ok(tools[0].includes(`PUBLIC_BUILD_ID=${LOOK_ALIKE}`), 'a look-alike passes untouched')
  assert.ok(tools[0].includes('OPENAI_BASE_URL=http://127.0.0.1:'), 'the base URL passes untouched')
  assert.match(tools[1], /ANTHROPIC_API_KEY=\[REDACTED:ANTHROPIC_API_KEY\]/)
  assert.match(tools[1], /API_SERVER_KEY=\[REDACTED:API_SERVER_KEY\]/)
  assert.match(tools[1], /AGENT_GREETING=hello-from-dotenv/)
  assert.match(tools[2], /\[REDACTED:(ANTHROPIC_API_KEY|API_SERVER_KEY)\]/)
  assert.match(tools[3], /api_key: "?\[REDACTED:custom_providers\[0\]\.api_key\]/)
  assertClean('a model request', JSON.stringify(bodies))
}

test('agent chat -q: the terminal reading the environment, .env and config.yaml gives the model, state.db and the log no secret', async (t) => {
  let home = ''
  const model = await startScriptedModel(commandingModel([]))
  t.after(() => model.close())
  const setup = setupHome(t, model)
  home = setup.home
  model.respond(commandingModel(commands(home)).respond)
  const run = await runAgent(['chat', '-q', `read my secrets; the server key is ${SECRETS.API_SERVER_KEY}`, '--json'], { home, cwd: setup.project, env: setup.env, logLevel: 'debug', timeoutMs: 90_000 })
  assert.equal(run.code, 0, run.stderr)
  const result = JSON.parse(run.stdout)
  assert.equal(result.exit_reason, 'completed')
  assertToolResults(model)
  assert.match(result.answer, /\[REDACTED:OPENAI_API_KEY\]/)
  assertClean('the answer', run.stdout)
  assertClean('stderr (debug log)', run.stderr)
  assertClean('state.db', stateDbText(home))
  assertClean('the log files', logFiles(home))
  assert.ok(stateDbText(home).includes(LOOK_ALIKE), 'the look-alike is stored as it was')
})

test('API server of agent gateway run: the same commands through /v1/chat/completions and /v1/responses leak nothing', async (t) => {
  const model = await startScriptedModel(commandingModel([]))
  t.after(() => model.close())
  const { home, project, env } = setupHome(t, model)
  model.respond(commandingModel(commands(home)).respond)
  const agent = startAgent(['gateway', 'run'], { home, cwd: project, env: { ...env, API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: SECRETS.API_SERVER_KEY }, logLevel: 'debug' })
  t.after(() => agent.stop())
  const url = (await agent.waitFor(/listening: api on (http:\/\/\S+)/, 60_000))[1]!
  const auth = { authorization: `Bearer ${SECRETS.API_SERVER_KEY}`, 'content-type': 'application/json' }

  const chat = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'agent', messages: [{ role: 'system', content: `deploy with ${SECRETS.DEPLOY_TOKEN}` }, { role: 'user', content: 'read my secrets' }] }) })
  const chatText = await chat.text()
  assert.equal(chat.status, 200, chatText)
  assertToolResults(model)
  assertClean('the chat completion', chatText)
  assert.match(chatText, /\[REDACTED:/)

  const before = model.requests.length
  const responses = await fetch(`${url}/v1/responses`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'agent', input: `again; my key is ${SECRETS.OPENAI_API_KEY}`, instructions: `token ${SECRETS.DEPLOY_TOKEN}`, store: true }) })
  const responsesText = await responses.text()
  assert.equal(responses.status, 200, responsesText)
  // The response echoes the client's own `instructions` (its own text, as the API defines); the rest is clean.
  const { instructions, ...response } = JSON.parse(responsesText)
  assert.equal(instructions, `token ${SECRETS.DEPLOY_TOKEN}`)
  assertClean('the response', JSON.stringify(response))
  assertClean('the model requests of /v1/responses', JSON.stringify(model.requests.slice(before).map((r) => r.body)))
  // An error body: a wrong key names no secret.
  const denied = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { ...auth, authorization: 'Bearer wrong' }, body: '{}' })
  assert.equal(denied.status, 401)
  assertClean('an error body', await denied.text())
  // A failing run: the provider's error text quotes secrets; the 500 body and the log do not.
  model.enqueue({ status: 400, error: `bad request: key ${SECRETS.CUSTOM} / ${SECRETS.ANTHROPIC_API_KEY} / ${SECRETS.OPENAI_API_KEY}` })
  const failed = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'fail please' }] }) })
  const failedText = await failed.text()
  assert.equal(failed.status, 500, failedText)
  assert.match(failedText, /bad request: key \*\*\* \/ \*\*\* \/ \*\*\*/)
  assertClean('a 500 error body', failedText)

  assertClean('state.db', stateDbText(home))
  assert.equal(await agent.stop(), 0)
  assertClean('the gateway log', agent.stderr() + agent.stdout())
  assertClean('state.db after shutdown', stateDbText(home))
  assertClean('the log files', logFiles(home))
})
