// Who is "named" (may save an approval to config): a stable id listed in <PLATFORM>_ALLOWED_USERS or
// GATEWAY_ALLOWED_USERS, or the config's allowed_users. A `*`, an allow-all switch, a group list and
// a pairing let people in without naming them.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { GATEWAY_AUTH_SERVICE, type GatewayAuthService, type MessageSource } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

async function namesUser(t: TestContext, env: Record<string, string>, extra: Record<string, unknown> = {}) {
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], env, config: { platforms: { chatty: { extra } } } })
  t.after(() => tk.close())
  const service = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  return (source: Omit<MessageSource, 'platform'>) => service.namesUser({ platform: 'chatty', chatType: 'dm', ...source })
}

test('an id in the platform list, the gateway list or the config list is named', async (t) => {
  const named = await namesUser(t, { CHATTY_ALLOWED_USERS: 'alice, +1 (555) 010-9999', GATEWAY_ALLOWED_USERS: 'bob' })
  assert.equal(named({ userId: 'alice' }), true)
  assert.equal(named({ userId: 'bob' }), true)
  assert.equal(named({ userId: '+15550109999' }), true, 'phone numbers compare without punctuation')
  assert.equal(named({ userId: 'Alice' }), false, 'ids compare exactly')
  assert.equal(named({ chatId: 'alice' }), false, 'no stable user id names no one')
  const fromConfig = await namesUser(t, {}, { allowed_users: [111] })
  assert.equal(fromConfig({ userId: '111' }), true)
})

test('a wildcard, an allow-all switch and a group list name no one', async (t) => {
  const open = await namesUser(t, { CHATTY_ALLOWED_USERS: '*', GATEWAY_ALLOW_ALL_USERS: 'true', CHATTY_ALLOW_ALL_USERS: 'true', CHATTY_GROUP_ALLOWED_USERS: 'carol' })
  assert.equal(open({ userId: 'mallory' }), false)
  assert.equal(open({ userId: 'carol', chatId: 'g1', chatType: 'group' }), false, 'a group list lets carol talk in groups, it does not name her')
  assert.equal(open({ userId: '*' }), false)
})
