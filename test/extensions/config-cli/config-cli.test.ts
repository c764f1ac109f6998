// `agent config set` coerces by the owner's schema and refuses what it cannot use (exit 2, file
// unchanged); `config show`/`get` print the values in effect with their source (default, env, project).

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

const config = (home: string) => YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))

test('set keeps strings strings and types the rest by the schema; a webhook prompt template stays text', async (t) => {
  const home = tempDir(t)
  const sets: Array<[string, string]> = [
    ['platforms.webhook.extra.routes.push.prompt', 'A push happened: {head_commit.message}'],
    ['platforms.webhook.extra.routes.ping.prompt', '{zen}'],
    ['platforms.webhook.extra.routes.push.events', '[push, ping]'],
    ['agent.system_prompt', 'Fix issue #12: be brief'],
    ['agent.max_iterations', '12'],
    ['display.show_cost', 'false'],
    ['model.default', '5'],
  ]
  for (const [key, value] of sets) {
    const run = await runAgent(['config', 'set', key, value], { home })
    assert.equal(run.code, 0, `${key}: ${run.stderr}`)
  }
  const saved = config(home)
  assert.equal(saved.platforms.webhook.extra.routes.push.prompt, 'A push happened: {head_commit.message}')
  assert.equal(saved.platforms.webhook.extra.routes.ping.prompt, '{zen}')
  assert.deepEqual(saved.platforms.webhook.extra.routes.push.events, ['push', 'ping'])
  assert.equal(saved.agent.system_prompt, 'Fix issue #12: be brief')
  assert.equal(saved.agent.max_iterations, 12)
  assert.equal(saved.display.show_cost, false)
  assert.equal(saved.model.default, '5')
})

test('invalid values and unknown keys are refused with the reason, exit 2, config.yaml unchanged', async (t) => {
  const home = tempDir(t)
  const before = '_config_version: 10\n# mine\ndisplay:\n  theme: dark\n'
  writeFileSync(join(home, 'config.yaml'), before)
  const cases: Array<[string, string, RegExp]> = [
    ['display.show_cost', 'maybe', /display\.show_cost: must be true or false \(got "maybe"\)/],
    ['agent.max_turns', '-3', /agent\.max_turns: unknown key \(did you mean "max_iterations"\?\); valid keys: /],
    ['agent.max_iterations', '-3', /agent\.max_iterations: must be at least 1 \(got -3\)/],
    ['display.theme', 'solarized', /display\.theme: must be one of light, dark/],
    ['display.show_cots', 'true', /display\.show_cots: unknown key \(did you mean "show_cost"\?\)/],
    ['model.context_length', '32k', /model\.context_length: must be an integer/],
    ['aprovals.mode', 'off', /aprovals\.mode: no extension reads "aprovals" \(did you mean "approvals"\?\)/],
  ]
  for (const [key, value, reason] of cases) {
    const run = await runAgent(['config', 'set', key, value], { home })
    assert.equal(run.code, 2, `${key} ${value}: ${run.stderr}`)
    assert.match(run.stderr, reason)
    assert.match(run.stderr, /was not changed/)
  }
  assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), before)
  // A section no loaded extension reads and that is no near miss (a plugin to come) is saved, with a note.
  const plugin = await runAgent(['config', 'set', 'my_plugin.level', '3'], { home })
  assert.equal(plugin.code, 0, plugin.stderr)
  assert.match(plugin.stderr, /no loaded extension reads "my_plugin"; saved as given/)
  assert.equal(config(home).my_plugin.level, 3)
})

test('show and get on a fresh home print the defaults, marked as such; nothing is written', async (t) => {
  const home = tempDir(t)
  const show = await runAgent(['config', 'show'], { home })
  assert.equal(show.code, 0, show.stderr)
  assert.doesNotMatch(show.stdout, /\(empty\)/)
  assert.match(show.stdout, /show_cost: true # default/)
  assert.match(show.stdout, /max_iterations: 90 # default/)
  const get = await runAgent(['config', 'get', 'display.show_cost'], { home })
  assert.equal(get.code, 0, get.stderr)
  assert.equal(get.stdout.trim(), 'true')
  assert.match(get.stderr, /display\.show_cost is not set in .*config\.yaml; this is its default/)
  assert.deepEqual(jsonOf(await runAgent(['config', 'get', 'display.show_cost', '--json'], { home })), { key: 'display.show_cost', value: true, source: 'default' })
  const missing = await runAgent(['config', 'get', 'display.nothing'], { home })
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /display\.nothing is not set and has no default/)
  assert.equal(existsSync(join(home, 'config.yaml')), false)
})

test('show --json lists every value in effect with its source; secrets masked', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), '_config_version: 10\ndisplay:\n  show_cost: false\nmodel:\n  api_key: sk-config-secret-123456\n')
  const shown = jsonOf(await runAgent(['config', 'show', '--json'], { home }))
  const byKey = new Map(shown.settings.map((e: any) => [e.key, e]))
  assert.deepEqual(byKey.get('display.show_cost'), { key: 'display.show_cost', value: false, source: 'config' })
  assert.deepEqual(byKey.get('display.show_reasoning'), { key: 'display.show_reasoning', value: false, source: 'default' })
  assert.deepEqual(byKey.get('model.api_key'), { key: 'model.api_key', value: '***', source: 'config' })
  assert.match(shown.config_path, /config\.yaml$/)
  const text = await runAgent(['config', 'show'], { home })
  assert.match(text.stdout, /show_cost: false\n/, 'a value from config.yaml is not marked')
  assert.doesNotMatch(text.stdout, /sk-config-secret/)
})

test('the source of a value: an environment override and a project config say so', async (t) => {
  const home = tempDir(t)
  const project = tempDir(t, 'agent-project-')
  writeFileSync(join(home, 'config.yaml'), '_config_version: 10\nagent:\n  max_iterations: 12\n')
  mkdirSync(join(project, '.agent'))
  writeFileSync(join(project, '.agent', 'config.yaml'), 'display:\n  theme: light\n')
  const env = { AGENT_MAX_ITERATIONS: '40', AGENT_PROJECT_EXTENSIONS: 'true' }
  const get = await runAgent(['config', 'get', 'agent.max_iterations', '--json'], { home, env, cwd: project })
  assert.deepEqual(jsonOf(get), { key: 'agent.max_iterations', value: 40, source: 'env' })
  const shown = jsonOf(await runAgent(['config', 'show', '--json'], { home, env, cwd: project }))
  assert.deepEqual(shown.settings.find((e: any) => e.key === 'display.theme'), { key: 'display.theme', value: 'light', source: 'project' })
  const text = await runAgent(['config', 'show'], { home, env, cwd: project })
  assert.match(text.stdout, /max_iterations: 40 # env AGENT_MAX_ITERATIONS/)
  assert.match(text.stdout, /theme: light # project/)
  const plain = jsonOf(await runAgent(['config', 'get', 'agent.max_iterations', '--json'], { home }))
  assert.deepEqual(plain, { key: 'agent.max_iterations', value: 12, source: 'config' })
})

test('set approvals.allowlist with a retired grant key: saved as typed (not widened) with a note; per-place keys without one', async (t) => {
  const home = tempDir(t)
  const stale = await runAgent(['config', 'set', 'approvals.allowlist', '[protected-path-write, rm-root]'], { home })
  assert.equal(stale.code, 0, stale.stderr)
  assert.match(stale.stderr, /^agent: note: approvals\.allowlist: "protected-path-write" no longer matches anything: .*; replace it with one entry per place you mean, e\.g\. protected-path-write:~\/\.gitconfig/m)
  assert.deepEqual(config(home).approvals.allowlist, ['protected-path-write', 'rm-root'])
  const placed = await runAgent(['config', 'set', 'approvals.allowlist', '[protected-path-write:~/.gitconfig, rm-root]'], { home })
  assert.equal(placed.code, 0, placed.stderr)
  assert.doesNotMatch(placed.stderr, /no longer matches/)
  assert.deepEqual(config(home).approvals.allowlist, ['protected-path-write:~/.gitconfig', 'rm-root'])
})

test('show, show --json and get mask what the runtime treats as secrets: URL passwords, ?api_key=, --api-key VALUE, MCP env and headers', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({
    _config_version: 10,
    mcp_servers: {
      search: {
        command: 'search-mcp',
        args: ['--api-key', 'mcp-arg-key-5566778899', '--verbose'],
        env: { ACME_ID: 'acme-id-0123456789ab', ROOT_DIR: '/srv/data', GITHUB_TOKEN: 'ghx-0011223344', NODE_ENV: 'production' },
        headers: { 'X-Acme-Id': 'xid-0011', 'Content-Type': 'application/json' },
      },
    },
    my_plugin: {
      database_url: 'postgres://agent:db-pass-3141592@127.0.0.1/agent',
      feed: 'https://api.example.com/v1/feed?format=json&api_key=qk-0123456789abcdef',
      home_page: 'https://example.com/docs?page=2',
      accessToken: 'at-0123456789',
      sortKey: 'updated-at',
    },
  }))
  const env = { DATABASE_URL: 'postgres://app:env-pass-2718281@db.internal/app', DB_PASSWORD_2: 'pw2-short', EDITOR: 'vim' }
  const secrets = ['mcp-arg-key-5566778899', 'acme-id-0123456789ab', 'ghx-0011223344', 'xid-0011', 'db-pass-3141592', 'qk-0123456789abcdef', 'at-0123456789', 'env-pass-2718281', 'pw2-short']
  const show = await runAgent(['config', 'show'], { home, env })
  assert.equal(show.code, 0, show.stderr)
  const json = await runAgent(['config', 'show', '--json'], { home, env })
  assert.equal(json.code, 0, json.stderr)
  for (const secret of secrets) {
    assert.ok(!show.stdout.includes(secret), `show: ${secret}`)
    assert.ok(!json.stdout.includes(secret), `show --json: ${secret}`)
  }
  const byKey = new Map(jsonOf(json).settings.map((e: any) => [e.key, e.value]))
  assert.equal(byKey.get('my_plugin.database_url'), 'postgres://agent:[REDACTED:my_plugin.database_url]@127.0.0.1/agent')
  assert.equal(byKey.get('my_plugin.feed'), 'https://api.example.com/v1/feed?format=json&api_key=[REDACTED:my_plugin.feed]')
  assert.deepEqual(byKey.get('mcp_servers.search.args'), ['--api-key', '[REDACTED:mcp_servers.search.args]', '--verbose'])
  for (const key of ['mcp_servers.search.env.ACME_ID', 'mcp_servers.search.env.GITHUB_TOKEN', 'mcp_servers.search.headers.X-Acme-Id', 'my_plugin.accessToken']) assert.equal(byKey.get(key), '***', key)
  // Look-alikes shown as they are: a URL without credentials, a path, a public header, another camelCase key.
  assert.equal(byKey.get('my_plugin.home_page'), 'https://example.com/docs?page=2')
  assert.equal(byKey.get('mcp_servers.search.env.ROOT_DIR'), '/srv/data')
  assert.equal(byKey.get('mcp_servers.search.env.NODE_ENV'), 'production')
  assert.equal(byKey.get('mcp_servers.search.headers.Content-Type'), 'application/json')
  assert.equal(byKey.get('my_plugin.sortKey'), 'updated-at')
  assert.equal(byKey.get('mcp_servers.search.command'), 'search-mcp')
  const get = async (key: string) => {
    const run = await runAgent(['config', 'get', key], { home, env })
    assert.equal(run.code, 0, run.stderr)
    return run.stdout.trim()
  }
  assert.equal(await get('my_plugin.database_url'), 'postgres://agent:[REDACTED:my_plugin.database_url]@127.0.0.1/agent')
  assert.equal(await get('mcp_servers.search.args'), '- --api-key\n- "[REDACTED:mcp_servers.search.args]"\n- --verbose')
  assert.equal(await get('DATABASE_URL'), 'postgres://app:[REDACTED:DATABASE_URL]@db.internal/app')
  assert.equal(await get('DB_PASSWORD_2'), '***')
  assert.equal(await get('EDITOR'), 'vim')
  assert.deepEqual(jsonOf(await runAgent(['config', 'get', 'my_plugin.feed', '--json'], { home, env })), { key: 'my_plugin.feed', value: 'https://api.example.com/v1/feed?format=json&api_key=[REDACTED:my_plugin.feed]', source: 'config' })
})
