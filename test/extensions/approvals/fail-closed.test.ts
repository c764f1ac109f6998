// Fail closed, end to end through the real `agent` bin: under every broken approvals config the
// scripted model's `rm -rf <tmp>/victim` is refused by the kernel (the directory survives and the
// model is told why), read_file still works, `agent doctor` says what to fix, `agent config set`
// refuses bad values; a valid `approvals.mode: off` does let a merely dangerous command run.

import assert from 'node:assert/strict'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { jsonOf, runAgent, startAgent } from '../../helpers/agent-process.ts'
import { guardFixture } from '../../helpers/guard-fixture.ts'

async function fixture(t: TestContext, config: Record<string, unknown>) {
  const { model, home, project, victim, env } = await guardFixture(t, config)
  const agent = (...args: string[]) => runAgent(args, { home, cwd: project, env })
  /** The model calls `tool` with `input`, then answers; resolves with what the tool returned to it. */
  const call = async (tool: string, input: Record<string, unknown>) => {
    model.enqueue({ toolCalls: [{ name: tool, arguments: input }] }, { text: 'done' })
    const before = model.requests.length
    const run = await agent('chat', '-q', 'do it', '--json')
    assert.equal(run.code, 0, run.stderr)
    const second = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))[1]
    return String(second?.body.messages.find((m: any) => m.role === 'tool')?.content)
  }
  return { model, home, project, victim, agent, call }
}

const BROKEN: Array<[string, Record<string, unknown>, RegExp]> = [
  ['approvals.mode: bogus', { approvals: { mode: 'bogus' } }, /approvals\.mode: must be one of manual, smart, off \(got "bogus"\).*; fix the setting and run agent doctor/],
  ['the mdoe typo', { approvals: { mdoe: 'manual' } }, /approvals\.mdoe: unknown key \(did you mean "mode"\?\).*; fix the setting and run agent doctor/],
  ['approvals.timeout: 60s', { approvals: { timeout: '60s' } }, /approvals\.timeout: must be a number \(got "60s"\)/],
  ['extensions.disabled: [approvals]', { extensions: { disabled: ['approvals'] } }, /disabled in extensions\.disabled\); remove "approvals" from extensions\.disabled in /],
]

for (const [name, config, why] of BROKEN) {
  test(`${name}: the terminal refuses rm -rf and says why; read_file still works`, async (t) => {
    const { victim, project, call } = await fixture(t, config)
    const result = await call('terminal', { command: `rm -rf ${victim}` })
    assert.ok(existsSync(join(victim, 'keep.txt')), `rm -rf ran: ${result}`)
    assert.match(result, /refused: the approvals guard is not loaded \(/)
    assert.match(result, why)
    writeFileSync(join(project, 'notes.txt'), 'still readable\n')
    assert.match(await call('read_file', { path: 'notes.txt' }), /still readable/)
  })
}

test('approvals.tools: [] no longer turns approvals off: the command still needs an approval nobody can give', async (t) => {
  const { victim, call } = await fixture(t, { approvals: { tools: [] } })
  const result = await call('terminal', { command: `rm -rf ${victim}` })
  assert.ok(existsSync(join(victim, 'keep.txt')), `rm -rf ran: ${result}`)
  assert.match(result, /Blocked: terminal was not run/)
  assert.doesNotMatch(result, /guard is not loaded/)
})

test('a broken approvals config also stops the file-write tools', async (t) => {
  const { project, call } = await fixture(t, { approvals: { mode: 'bogus' } })
  const result = await call('write_file', { path: 'new.txt', content: 'x' })
  assert.match(result, /refused: the approvals guard is not loaded/)
  assert.ok(!existsSync(join(project, 'new.txt')))
})

test('look-alike: a valid approvals.mode: off lets a dangerous (not never-allowed) command run', async (t) => {
  const { victim, call } = await fixture(t, { approvals: { mode: 'off' } })
  const result = await call('terminal', { command: 'rm -rf victim' })
  assert.ok(!existsSync(victim), `rm -rf did not run: ${result}`)
  assert.match(result, /"exit_code": 0/)
})

test('agent doctor names the file, the key, the fix and the tools that refuse', async (t) => {
  const { home, agent } = await fixture(t, { approvals: { mdoe: 'manual' } })
  const run = await agent('doctor', '--json', '--offline')
  const line = jsonOf(run).checks.find((c: any) => c.subject === 'approvals')
  assert.equal(line.verdict, 'fail')
  assert.ok(line.detail.includes(join(home, 'config.yaml')), line.detail)
  assert.match(line.detail, /approvals\.mdoe: unknown key \(did you mean "mode"\?\)/)
  assert.match(line.detail, /refused until fixed: terminal, process, write_file, patch/)
  assert.match(line.fix, /correct it in .*config\.yaml, or use agent config set/)
  assert.equal(run.code, 1)
})

test('agent config set refuses an invalid safety value (exit 2, nothing written) and accepts a valid one', async (t) => {
  const { home, agent } = await fixture(t, {})
  const configPath = join(home, 'config.yaml')
  const before = readFileSync(configPath, 'utf8')
  const bad = await agent('config', 'set', 'approvals.timeout', '60s')
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /approvals\.timeout: must be a number \(got "60s"\).*was not changed/)
  const typo = await agent('config', 'set', 'approvals.mdoe', 'off')
  assert.equal(typo.code, 2)
  assert.match(typo.stderr, /approvals\.mdoe: unknown key \(did you mean "mode"\?\)/)
  assert.equal(readFileSync(configPath, 'utf8'), before, 'config.yaml unchanged')
  const good = await agent('config', 'set', 'approvals.timeout', '90')
  assert.equal(good.code, 0, good.stderr)
  assert.equal(YAML.parse(readFileSync(configPath, 'utf8')).approvals.timeout, 90)
})

test('through the API server (agent gateway run): a broken approvals config refuses rm -rf in /v1/chat/completions', async (t) => {
  const { model, home, victim } = await fixture(t, { approvals: { mode: 'bogus' } })
  const key = 'fail-closed-test-key-0123456789'
  const gateway = startAgent(['gateway', 'run'], {
    home,
    env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0', API_SERVER_KEY: key, AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, AGENT_MODEL: 'scripted-model' },
  })
  t.after(() => gateway.stop())
  const url = (await gateway.waitFor(/listening: api on (http:\/\/\S+)/))[1]!
  await gateway.waitFor(/gateway running/)
  model.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `rm -rf ${victim}` } }] }, { text: 'I could not remove it.' })
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'remove the victim folder' }] }),
  })
  assert.equal(response.status, 200, await response.clone().text())
  assert.equal(((await response.json()) as any).choices[0].message.content, 'I could not remove it.')
  assert.ok(existsSync(victim), 'rm -rf ran through the API server')
  const second = model.requests.filter((r) => r.path.endsWith('/chat/completions'))[1]
  const told = String(second?.body.messages.find((m: any) => m.role === 'tool')?.content)
  assert.match(told, /refused: the approvals guard is not loaded \(.*approvals\.mode: must be one of manual, smart, off/)
  // Stopped here, before the t.after hooks (run in order) remove its home.
  assert.equal(await gateway.stop(), 0, gateway.stderr())
})
