// `agent model`: the wizard in a real terminal (a custom endpoint with a name, its served model and a
// context length; Ctrl-C changes nothing), the same choice by flags, refusals that write nothing,
// and no waiting without a terminal.

import assert from 'node:assert/strict'
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { CONFIG_VERSION } from '../../../kernel/config/migrate.ts'
import { runAgent } from '../../helpers/agent-process.ts'
import { hasTmux, openTerminal, type Terminal } from '../../helpers/tmux.ts'

let model: ScriptedModelServer
const homes: string[] = []
const terminals: Terminal[] = []

before(async () => {
  model = await startScriptedModel({ models: ['scripted-model', 'foo'] })
})
after(async () => {
  terminals.forEach((t) => t.close())
  await model.close()
  homes.forEach((h) => rmSync(h, { recursive: true, force: true }))
})

function home(): string {
  const dir = makeTempHome('agent-model-')
  homes.push(dir)
  writeFileSync(join(dir, 'config.yaml'), '_config_version: 10\n')
  return dir
}
const config = (dir: string) => YAML.parse(readFileSync(join(dir, 'config.yaml'), 'utf8'))

test('the wizard sets up a named custom endpoint with its model and context length', { skip: !hasTmux() && 'tmux is not installed' }, async () => {
  const dir = home()
  const t = openTerminal({ home: dir, args: ['model'], columns: 100, rows: 30 })
  terminals.push(t)
  await t.waitFor(/Model provider/, 20_000, 'the provider question')
  t.type('custom')
  // The custom entry is on screen before filtering too: wait until the list is really filtered.
  await t.waitFor((s) => /Custom OpenAI-compatible endpoint/.test(s) && /› custom/.test(s) && !/AI Gateway/.test(s), 5_000, 'the filtered list')
  t.send('Enter')
  await t.waitFor(/Name this endpoint/, 5_000)
  t.type('lab')
  t.send('Enter')
  await t.waitFor(/Base URL/, 5_000)
  t.type(model.url)
  t.send('Enter')
  await t.waitFor(/API key/, 5_000)
  t.send('Enter')
  await t.waitFor(/reachable; serves 2 model\(s\)[\s\S]*Model/, 10_000, 'the reachability line and the model question')
  t.type('foo')
  // The list is filtered asynchronously: wait until only foo is offered.
  await t.waitFor((s) => /Model › foo/.test(s) && !/scripted-model/.test(s), 5_000, 'the filtered model list')
  t.send('Enter')
  await t.waitFor(/Context length/, 5_000)
  t.type('16384')
  t.send('Enter')
  const end = await t.waitFor(/\[agent exited \d+\]/, 10_000, 'the end')
  assert.match(end, /saved: custom_providers, model\.provider, model\.default/)
  assert.match(end, /\[agent exited 0\]/)
  const c = config(dir)
  assert.deepEqual(c.custom_providers, [{ name: 'lab', base_url: model.url, model: 'foo', context_length: 16384 }])
  assert.equal(c.model.provider, 'custom:lab')
  assert.equal(c.model.default, 'foo')
})

test('Ctrl-C in the wizard changes nothing', { skip: !hasTmux() && 'tmux is not installed' }, async () => {
  const dir = home()
  const before = readFileSync(join(dir, 'config.yaml'), 'utf8')
  const t = openTerminal({ home: dir, args: ['model'], columns: 100, rows: 30 })
  terminals.push(t)
  await t.waitFor(/Model provider/, 20_000)
  t.send('C-c')
  const end = await t.waitFor(/\[agent exited \d+\]/, 10_000)
  assert.match(end, /\[agent exited 1\]/)
  assert.match(t.stderr(), /cancelled; nothing was changed/)
  assert.equal(readFileSync(join(dir, 'config.yaml'), 'utf8'), before)
  assert.equal(existsSync(join(dir, '.env')), false)
})

test('flags do the same without questions; the key goes to .env (0600)', async () => {
  const dir = home()
  const r = await runAgent(['model', '--base-url', model.url, '--name', 'lab', '--api-key', 'sk-test-123', '--context-length', '32768'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stderr)
  assert.match(r.stdout, /saved: custom_providers, model\.provider, model\.default, LAB_API_KEY \(\.env\)/)
  const c = config(dir)
  assert.deepEqual(c.custom_providers, [{ name: 'lab', base_url: model.url, model: 'scripted-model', context_length: 32768, key_env: 'LAB_API_KEY' }])
  assert.doesNotMatch(readFileSync(join(dir, 'config.yaml'), 'utf8'), /sk-test-123/)
  assert.match(readFileSync(join(dir, '.env'), 'utf8'), /^LAB_API_KEY=sk-test-123$/m)
  assert.equal(statSync(join(dir, '.env')).mode & 0o777, 0o600)
  const shown = await runAgent(['model', '--json'], { home: dir, env: { LAB_API_KEY: undefined }, timeoutMs: 60_000 })
  assert.deepEqual(JSON.parse(shown.stdout), { configured: true, provider: 'custom:lab', model: 'scripted-model', base_url: model.url, custom_name: 'lab', source: 'config' })
})

test('bad input is refused and nothing is written', async () => {
  const dir = home()
  const before = readFileSync(join(dir, 'config.yaml'), 'utf8')
  const closed = createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  const port = (closed.address() as { port: number }).port
  await new Promise<void>((r) => closed.close(() => r()))
  const cases: Array<[string[], number, RegExp]> = [
    [['model', '--provider', 'nosuch'], 2, /unknown provider "nosuch"/],
    [['model', '--base-url', 'ftp://x'], 2, /invalid base URL/],
    [['model', '--base-url', model.url, '--model', 'bar'], 2, /does not serve "bar"/],
    [['model', '--base-url', `http://127.0.0.1:${port}/v1`], 1, /cannot reach .*nothing saved/],
    [['model', '--provider', 'openai'], 2, /openai is not configured .*--api-key/],
    [['model', '--base-url', model.url, '--context-length', '12'], 2, /invalid context length/],
  ]
  for (const [args, code, message] of cases) {
    const r = await runAgent(args, { home: dir, timeoutMs: 60_000 })
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
    assert.match(r.stderr, message)
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one line')
  }
  assert.equal(readFileSync(join(dir, 'config.yaml'), 'utf8'), before)
  assert.equal(existsSync(join(dir, '.env')), false)
})

test('without a terminal nothing waits: agent model and agent setup print what to run', async () => {
  const dir = home()
  const m = await runAgent(['model'], { home: dir, timeoutMs: 30_000 })
  assert.equal(m.code, 0)
  assert.match(m.stdout, /no model configured[\s\S]*agent model --provider/)
  const s = await runAgent(['setup'], { home: dir, timeoutMs: 30_000 })
  assert.equal(s.code, 0)
  assert.match(s.stdout, /agent config set display\.theme dark\|light/)
  const tools = await runAgent(['tools'], { home: dir, timeoutMs: 30_000 })
  assert.equal(tools.code, 0)
  assert.match(tools.stdout, /agent config set web\.backend|No tool declares a selectable backend/)
})

test('agent setup walks the steps and saves the display preferences', { skip: !hasTmux() && 'tmux is not installed' }, async () => {
  const dir = home()
  const t = openTerminal({ home: dir, args: ['setup'], columns: 100, rows: 30, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
  terminals.push(t)
  await t.waitFor(/Choose the model provider and model now\?/, 20_000, 'the model step')
  t.type('n')
  await t.waitFor(/Choose tool backends and toolsets now\?/, 5_000, 'the tools step (from the registry)')
  t.type('n')
  await t.waitFor(/Set up the messaging gateway now\?/, 5_000, 'the gateway step (from the registry)')
  t.type('n')
  await t.waitFor(/Terminal theme/, 5_000)
  t.send('Down')
  t.send('Enter')
  await t.waitFor(/Show cost/, 5_000)
  t.type('y')
  await t.waitFor(/Show model reasoning/, 5_000)
  t.type('y')
  const end = await t.waitFor(/\[agent exited \d+\]/, 10_000)
  assert.match(end, /\[agent exited 0\]/, t.stderr())
  assert.match(end, /Done\. Start chatting with `agent`/)
  assert.deepEqual(config(dir).display, { theme: 'light', show_cost: true, show_reasoning: true })
  // A home set up from nothing is current: no migration warning on the next command.
  assert.equal(config(dir)._config_version, CONFIG_VERSION)
  assert.doesNotMatch((await runAgent(['extensions', 'list'], { home: dir })).stderr, /config version/)
})
