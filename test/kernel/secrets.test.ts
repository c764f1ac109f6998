// Which secrets the agent knows (kernel/config/secrets.ts through FileSettings.secretEntries):
// secret-named variables of the environment and .env (numbered ones, short values, key files),
// credential-shaped .env values, provider and platform credentials in config.yaml (MCP env and
// headers, camelCase keys), key_env targets, URL passwords; and what is not a secret.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { FileSettings } from '../../kernel/config/settings.ts'
import { createLogger } from '../../kernel/log.ts'
import { knownSecretsRedactor } from '../../sdk/index.ts'
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

test('short values under numbered and _PW/_PASS names, and key files, in .env; look-alike names are not collected', (t) => {
  const home = tempDir(t)
  const body = ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACBQk1hV3Ljc0Xb9mA7tq2jR6yLwH4uK8pF1sD5gZ0nE7QAAAJgH3k2fB5Nn']
  const pem = ['-----BEGIN OPENSSH PRIVATE KEY-----', ...body, '-----END OPENSSH PRIVATE KEY-----'].join('\n')
  writeFileSync(join(home, '.env'), [
    'DB_PASSWORD_2=pw2-short', 'API_KEY2=k2short', 'SMTP_PW=hunter22', 'MY_PASS=pa55word', 'TOKEN2=t2-abc1',
    `DEPLOY_PRIVATE_KEY="${pem.replace(/\n/g, '\\n')}"`,
    `GITHUB_APP_PEM="-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEAx1y2z3\\nProc-Type: 4,ENCRYPTED\\n-----END RSA PRIVATE KEY-----"`,
    'KEYBOARD_LAYOUT=dvorak-intl', 'TOKENIZER_MODEL=cl100k_base', 'MONKEY=banana-split', 'PASSWORD_MIN_LENGTH=12',
    'PWD=/home/u/project', 'OLDPWD=/home/u', 'PROXY_BYPASS=internal.example,localhost',
  ].join('\n') + '\n')
  const settings = new FileSettings({ home, env: { PWD: '/home/u/project', OLDPWD: '/home/u', PATH: '/usr/bin' } })
  const byValue = new Map(settings.secretEntries().map((e) => [e.value, e.name]))
  const named: Array<[string, string]> = [['pw2-short', 'DB_PASSWORD_2'], ['k2short', 'API_KEY2'], ['hunter22', 'SMTP_PW'], ['pa55word', 'MY_PASS'], ['t2-abc1', 'TOKEN2'], [pem, 'DEPLOY_PRIVATE_KEY']]
  for (const [value, name] of named) assert.equal(byValue.get(value), name, name)
  assert.ok([...byValue.values()].includes('GITHUB_APP_PEM'), 'a private key under any name')
  assert.equal([...byValue.keys()].some((v) => v.includes('ENCRYPTED') && !v.includes('BEGIN')), false, 'a key file is no list')
  for (const plain of ['dvorak-intl', 'cl100k_base', 'banana-split', '12', '/home/u/project', '/home/u', 'internal.example', 'localhost']) assert.equal(byValue.has(plain), false, plain)
  // What the model reads: the key numbered (read_file), or its body alone, holds no line of it.
  const redact = knownSecretsRedactor(settings)
  const numbered = pem.split('\n').map((line, i) => `${i + 1}|${line}`).join('\n')
  assert.equal(redact(numbered), `1|-----BEGIN OPENSSH PRIVATE KEY-----\n2|[REDACTED:DEPLOY_PRIVATE_KEY]\n3|[REDACTED:DEPLOY_PRIVATE_KEY]\n4|-----END OPENSSH PRIVATE KEY-----`)
  assert.equal(redact(body.join('\r\n')), '[REDACTED:DEPLOY_PRIVATE_KEY]\r\n[REDACTED:DEPLOY_PRIVATE_KEY]')
  assert.equal(redact('login as MONKEY with hunter22 on /home/u/project'), 'login as MONKEY with [REDACTED:SMTP_PW] on /home/u/project')
})

test('config.yaml: credential-shaped MCP env variables, every header (not public ones), camelCase secret keys', (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({
    mcp_servers: {
      acme: { command: 'acme-mcp', env: { ACME_ID: 'acme-id-0123456789ab', ROOT_DIR: '/srv/data', API_BASE: 'https://api.acme.example/v2', LEVEL: 'warn', NODE_ENV: 'production', TENANT: 'acme-77x' }, headers: { 'X-Acme-Id': 'xid-0011', 'Content-Type': 'application/json' } },
    },
    custom_providers: [{ name: 'c', base_url: 'http://127.0.0.1:9/v1', extra_headers: { 'X-Org': 'org-5566' } }],
    platforms: { matrix: { extra: { accessToken: 'at-short1', clientSecret: 'cs-short2', apiKey: 'ak-short3', refreshToken: 'rt-short4' } } },
    display: { sortKey: 'updated-at' },
  }))
  const settings = new FileSettings({ home, env: {} })
  const byValue = new Map(settings.secretEntries().map((e) => [e.value, e.name]))
  assert.equal(byValue.get('acme-id-0123456789ab'), 'mcp_servers.acme.env.ACME_ID')
  assert.equal(byValue.get('xid-0011'), 'mcp_servers.acme.headers.X-Acme-Id')
  assert.equal(byValue.get('org-5566'), 'custom_providers[0].extra_headers.X-Org')
  for (const key of ['accessToken', 'clientSecret', 'apiKey', 'refreshToken']) assert.ok([...byValue.values()].includes(`platforms.matrix.extra.${key}`), key)
  // Locations, public headers, short values, other camelCase keys.
  for (const plain of ['/srv/data', 'https://api.acme.example/v2', 'warn', 'production', 'acme-77x', 'application/json', 'acme-mcp', 'updated-at', 'http://127.0.0.1:9/v1']) assert.equal(byValue.has(plain), false, plain)
})
