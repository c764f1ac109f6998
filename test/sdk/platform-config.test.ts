// platformConfigSchema: every platform's `platforms.<name>` section types the keys the gateway reads
// for all platforms (allowlists, home channel) the same way, next to the adapter's own keys.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, envBoolean, parseHttpUrl, parseIdList, platformConfigSchema } from 'agent/sdk'
import { validateConfig } from '../../kernel/config/validate.ts'

const where = { file: 'config.yaml', key: 'platforms.chatty' }
const schema = platformConfigSchema({ poll_seconds: { type: 'integer', minimum: 1, default: 30 } })

test('the common keys and the adapter own keys are accepted, defaults filled', () => {
  const config = validateConfig(schema, { enabled: true, extra: { allowed_users: [111, 'bob'], group_allowed_users: '1, 2', allow_all_users: false, home_channel: -100, home_channel_name: 'Ops', reply_prefix: 'x' } }, where)
  assert.deepEqual(config.extra, { allowed_users: [111, 'bob'], group_allowed_users: '1, 2', allow_all_users: false, home_channel: -100, home_channel_name: 'Ops', reply_prefix: 'x', poll_seconds: 30 })
  assert.deepEqual(validateConfig(schema, undefined, where), { extra: { poll_seconds: 30 } })
  // One id written as a YAML number, as a user with one allowed account would.
  assert.equal((validateConfig(schema, { extra: { allowed_users: 12345 } }, where) as { extra: { allowed_users: unknown } }).extra.allowed_users, 12345)
})

test('a wrongly typed common key or own key is refused with its path', () => {
  assert.throws(() => validateConfig(schema, { extra: { allowed_users: { bob: true } } }, where), /allowed_users/)
  assert.throws(() => validateConfig(schema, { extra: { allow_all_users: 'maybe' } }, where), /allow_all_users/)
  assert.throws(() => validateConfig(schema, { extra: { poll_seconds: 0 } }, where), /poll_seconds/)
})

test('an adapter key of a common name wins over the common one', () => {
  const strict = platformConfigSchema({ home_channel: { type: 'string' } })
  assert.throws(() => validateConfig(strict, { extra: { home_channel: 5 } }, where), /home_channel/)
})

test('an id list from a config list or a comma variable, trimmed, blanks dropped', () => {
  assert.deepEqual([...parseIdList([111, ' bob '])], ['111', 'bob'])
  assert.deepEqual([...parseIdList(' 1, ,2,1 ')], ['1', '2'])
  assert.equal(parseIdList(undefined).size, 0)
  assert.deepEqual([...parseIdList(12345)], ['12345'])
})

test('an http(s) address is accepted; anything else is a ConfigError naming the variable', () => {
  assert.equal(parseHttpUrl('CHATTY_API_BASE_URL', 'http://127.0.0.1:8080/api').pathname, '/api')
  assert.throws(() => parseHttpUrl('CHATTY_API_BASE_URL', 'not a url'), (e: unknown) => e instanceof ConfigError && /CHATTY_API_BASE_URL is not a URL/.test(e.message))
  assert.throws(() => parseHttpUrl('CHATTY_API_BASE_URL', 'ftp://example.org'), /CHATTY_API_BASE_URL must be an http\(s\) URL/)
})

test('a true/false variable wins over the config value; anything else is refused', () => {
  const settings = (value?: string) => ({ env: (name: string) => (name === 'CHATTY_REQUIRE_MENTION' ? value : undefined) }) as never
  assert.equal(envBoolean(settings(undefined), 'CHATTY_REQUIRE_MENTION', true), true)
  assert.equal(envBoolean(settings('  '), 'CHATTY_REQUIRE_MENTION', false), false)
  assert.equal(envBoolean(settings(' Off '), 'CHATTY_REQUIRE_MENTION', true), false)
  assert.equal(envBoolean(settings('yes'), 'CHATTY_REQUIRE_MENTION', false), true)
  assert.throws(() => envBoolean(settings('sometimes'), 'CHATTY_REQUIRE_MENTION', true), /CHATTY_REQUIRE_MENTION must be true or false, not "sometimes"/)
})
