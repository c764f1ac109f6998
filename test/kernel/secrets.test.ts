// Which secrets the agent knows (kernel/config/secrets.ts through FileSettings.secretEntries):
// secret-named variables of the environment and .env, credential-shaped .env values, provider and
// platform credentials in config.yaml, key_env targets, URL passwords; and what is not a secret.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { FileSettings } from '../../kernel/config/settings.ts'
import { createLogger } from '../../kernel/log.ts'
import { tempDir } from '../helpers/temp.ts'

test('secretEntries names every credential of the environment, .env and config.yaml', (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, '.env'), 'API_SERVER_KEY=srv-key-0123456789\nMISC_VALUE=Zq81mWx03kLp77Hd\nAPI_SERVER_ENABLED=true\nGREETING=hello world\n')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({
    model: { provider: 'custom', api_key: 'model-key-abcdef123' },
    custom_providers: [{ name: 'local', base_url: 'http://127.0.0.1:9/v1', api_key: 'cp-key-777888999' }, { name: 'other', key_env: 'MY_LLM' }],
    platforms: { telegram: { extra: { bot_token: 'bot-token-123456789' } } },
    auxiliary: { vision: { api_key: 'aux-key-44556677' } },
    mcp_servers: { gh: { env: { GITHUB_TOKEN: 'ghx-0011223344' }, headers: { Authorization: 'Bearer hdr-token-99887766' } } },
    storage: { url: 'postgres://agent:db-pass-3141592@127.0.0.1/agent' },
    display: { show_cost: true, sort_key: 'updated' },
  }))
  const settings = new FileSettings({ home, env: { OPENAI_API_KEY: 'sk-env-0123456789', OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1', MY_LLM: 'llm-secret-5566', HOME_DIR_TOKEN: 'true', PATH: '/usr/bin' } })
  const byValue = new Map(settings.secretEntries().map((e) => [e.value, e.name]))
  assert.equal(byValue.get('sk-env-0123456789'), 'OPENAI_API_KEY')
  assert.equal(byValue.get('srv-key-0123456789'), 'API_SERVER_KEY')
  assert.equal(byValue.get('Zq81mWx03kLp77Hd'), 'MISC_VALUE', 'a credential-shaped .env value under any name')
  assert.equal(byValue.get('model-key-abcdef123'), 'model.api_key')
  assert.equal(byValue.get('cp-key-777888999'), 'custom_providers[0].api_key')
  assert.equal(byValue.get('llm-secret-5566'), 'MY_LLM', 'the variable a key_env names')
  assert.equal(byValue.get('bot-token-123456789'), 'platforms.telegram.extra.bot_token')
  assert.equal(byValue.get('aux-key-44556677'), 'auxiliary.vision.api_key')
  assert.equal(byValue.get('ghx-0011223344'), 'mcp_servers.gh.env.GITHUB_TOKEN')
  assert.equal(byValue.get('hdr-token-99887766'), 'mcp_servers.gh.headers.Authorization')
  assert.equal(byValue.get('db-pass-3141592'), 'storage.url')
  // Not secrets: URLs, switches, plain text, short or common values.
  for (const v of ['http://127.0.0.1:8080/v1', 'true', 'hello world', '/usr/bin', 'updated', 'custom']) assert.equal(byValue.has(v), false, v)
  assert.deepEqual(new Set(settings.secretValues()), new Set(byValue.keys()))
})

test('a .env changed on disk is seen by the next fresh call, and by any call 100 ms on', async (t) => {
  const home = tempDir(t)
  const settings = new FileSettings({ home, env: {} })
  assert.deepEqual(settings.secretEntries(), [])
  writeFileSync(join(home, '.env'), 'LATE_TOKEN=late-token-0123456789\n')
  const late = [{ name: 'LATE_TOKEN', value: 'late-token-0123456789' }]
  assert.deepEqual(settings.secretEntries({ fresh: true }), late)
  writeFileSync(join(home, '.env'), 'LATER_TOKEN=later-token-0123456789\n')
  await new Promise((resolve) => setTimeout(resolve, 120))
  assert.deepEqual(settings.secretEntries(), [{ name: 'LATER_TOKEN', value: 'later-token-0123456789' }])
})

test('the kernel logger masks .env and config.yaml credentials, never short or common values', (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, '.env'), 'SHORT_TOKEN=abc\nFLAG_SECRET=true\nAPI_SERVER_KEY=srv-key-0123456789\n')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ custom_providers: [{ name: 'x', api_key: 'cp-key-777888999' }] }))
  const settings = new FileSettings({ home, env: {} })
  const lines: string[] = []
  const log = createLogger('test', { level: 'debug', sink: { write: (line) => lines.push(line) }, secrets: () => settings.secretValues() })
  log.warn('key srv-key-0123456789 and cp-key-777888999 in base64 ' + Buffer.from('cp-key-777888999').toString('base64'), { header: 'srv-key-0123456789' })
  log.info('abc is true')
  assert.equal(lines[0], '[test] warn: key *** and *** in base64 *** {"header":"***"}')
  assert.equal(lines[1], '[test] info: abc is true')
})

test('more credential shapes: plural and passphrase names, list items, URL keys, DSNs, option values', (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, '.env'), [
    'DB_PASSWD=Tr0ub4dor&3x',
    'SIGNING_PASSPHRASE=correct horse battery staple',
    'GEMINI_API_KEYS=AIzaFirstKey0123456789,AIzaSecondKey987654321',
    'SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx',
    'SENTRY_DSN=https://0123456789abcdef0123456789abcdef@o123.ingest.sentry.io/42',
    'FEED_URL=https://api.example.com/v1/feed?format=json&api_key=qk-0123456789abcdef',
    'PWD=/home/u/project',
    'GREETING=hello, world; and more',
  ].join('\n') + '\n')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({
    mcp_servers: {
      search: { command: 'search-mcp', args: ['--api-key', 'mcp-arg-key-5566778899', '--verbose'], headers: { 'Proxy-Authorization': 'Basic cHJveHk6cGFzc3dvcmQxMjM=', Cookie: 'session=ck-0123456789abcdef', 'X-Auth': 'xa-0123456789abcdef' } },
      other: { command: 'other-mcp', args: ['--token=mcp-attached-tok-001122'] },
    },
  }))
  const settings = new FileSettings({ home, env: {} })
  const values = new Set(settings.secretValues())
  for (const secret of [
    'Tr0ub4dor&3x', 'correct horse battery staple', 'AIzaFirstKey0123456789', 'AIzaSecondKey987654321',
    'https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx', '0123456789abcdef0123456789abcdef', 'qk-0123456789abcdef',
    'mcp-arg-key-5566778899', 'mcp-attached-tok-001122', 'cHJveHk6cGFzc3dvcmQxMjM=', 'session=ck-0123456789abcdef', 'xa-0123456789abcdef',
  ]) assert.ok(values.has(secret), secret)
  // Look-alikes: the working folder, words of a passphrase alone, a list in an ordinary value, other query parameters.
  for (const plain of ['/home/u/project', 'correct', 'battery', 'hello', 'world', 'json', '--verbose', 'search-mcp']) assert.equal(values.has(plain), false, plain)
})
