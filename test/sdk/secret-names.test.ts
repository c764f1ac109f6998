// Which names and config places hold secrets (sdk/redact.ts): environment names (isSecretName),
// config keys, camelCase ones too (isSecretConfigKey), and config places whatever their key
// (isSecretConfigValue: an MCP server's env, headers); and the look-alikes that do not.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isSecretConfigKey, isSecretConfigValue, isSecretName } from '../../sdk/index.ts'

test('secret variable names: numbered ones, a secret word inside, _PW/_PWD/_PASS, an Authorization header kept in .env', () => {
  for (const name of [
    'OPENAI_API_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD', 'APIKEY', 'GEMINI_API_KEYS', 'SIGNING_PASSPHRASE', 'SENTRY_DSN',
    'DB_PASSWORD_2', 'API_KEY2', 'API_KEY_2', 'TOKEN2', 'CLIENT_SECRET_3', 'SMTP_PW', 'DB_PWD', 'DB_PWD2', 'MY_PASS', 'SMTP_PASS2',
    'DB_PASSWORD_FILE', 'ADMIN_PASS_HASH', 'API_KEY_ID', 'MCP_GH_HEADER_AUTHORIZATION', 'db_password',
  ]) assert.equal(isSecretName(name), true, name)
})

test('look-alike names are not secrets: shell folders, settings about secrets, words that only end like one', () => {
  for (const name of [
    'PATH', 'PWD', 'OLDPWD', 'HOME', 'PW', 'KEYBOARD_LAYOUT', 'TOKENIZER_MODEL', 'TOKENIZERS_PARALLELISM', 'PASSWORD_MIN_LENGTH',
    'MONKEY', 'MONKEY2', 'HOTKEY', 'WHISKEY', 'CACHE_BYPASS', 'PROXY_BYPASS', 'COMPASS', 'LANG', 'NODE_ENV', 'TZ', 'SSH_AUTH_SOCK_DIR',
  ]) assert.equal(isSecretName(name), false, name)
})

test('config keys: snake, kebab and camelCase compounds are secrets; other keys are not', () => {
  for (const key of [
    'api_key', 'apiKey', 'accessToken', 'clientSecret', 'refreshToken', 'authToken', 'appSecret', 'webhookUrl', 'privateKey',
    'bot_token', 'client_secret', 'summary_api_key', 'signing_key', 'smtp_pass', 'api_key_2', 'X-Api-Key', 'Authorization', 'GITHUB_TOKEN',
  ]) assert.equal(isSecretConfigKey(key), true, key)
  for (const key of ['sort_key', 'sortKey', 'primaryKey', 'idempotencyKey', 'key', 'keyboard', 'pwd', 'compass', 'tokenizer', 'PATH', 'base_url']) {
    assert.equal(isSecretConfigKey(key), false, key)
  }
})

test('config places: secret-named or credential-shaped MCP env variables, every header but public ones', () => {
  assert.equal(isSecretConfigValue(['mcp_servers', 'gh', 'env', 'GITHUB_PAT'], 'abc12345'), true)
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'env', 'ACME_ID'], 'acme-id-0123456789ab'), true, 'credential-shaped')
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'env', 'ACME_ID'], 'acme-id-77'), false, 'a short word under a plain name')
  assert.equal(isSecretConfigValue(['mcp_servers', 'app', 'env', 'NODE_ENV'], 'production'), false, 'would erase the word everywhere')
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'headers', 'X-Acme-Id'], 'xid-0011'), true)
  assert.equal(isSecretConfigValue(['custom_providers', 'extra_headers', 'X-Org'], 'org-5566'), true)
  assert.equal(isSecretConfigValue(['model', 'api_key'], 'model-key-abcdef123'), true)
  // Locations in an MCP server's environment, public headers, env-like keys elsewhere, ordinary values.
  assert.equal(isSecretConfigValue(['mcp_servers', 'fs', 'env', 'ROOT'], '/home/u/project'), false)
  assert.equal(isSecretConfigValue(['mcp_servers', 'fs', 'env', 'API_BASE'], 'https://api.example.com/v1'), false)
  assert.equal(isSecretConfigValue(['mcp_servers', 'fs', 'env', 'GITHUB_WEBHOOK_URL'], 'https://hooks.example.com/T0/abc'), true, 'a secret name wins')
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'headers', 'Content-Type'], 'application/json'), false)
  assert.equal(isSecretConfigValue(['custom_providers', 'headers', 'HTTP-Referer'], 'https://myapp.example'), false)
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'command'], 'acme-mcp-server'), false)
  assert.equal(isSecretConfigValue(['mcp_servers', 'acme', 'env'], 'production'), false, 'env as a key of its own')
  assert.equal(isSecretConfigValue(['deploy', 'env', 'REGION'], 'eu-west-1a'), false, 'an env mapping outside mcp_servers')
  assert.equal(isSecretConfigValue(['display', 'sort_key'], 'updated'), false)
})
