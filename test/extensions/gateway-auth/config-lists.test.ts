// The allowlists and the home channel under platforms.<name>.extra in config.yaml (allowed_users,
// group_allowed_users, allow_all_users, home_channel): read when the variable is unset, the variable
// winning when both are set; a list or a comma string both work.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { DELIVERY_SERVICE, GATEWAY_AUTH_SERVICE, type DeliveryService, type GatewayAuthService, type MessageSource } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

async function kernel(t: TestContext, extra: Record<string, unknown>, env: Record<string, string> = {}) {
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth', 'delivery'], env, config: { platforms: { chatty: { extra } } } })
  t.after(() => tk.close())
  const service = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  const allowed = (source: Omit<MessageSource, 'platform'>) => service.authorize({ platform: 'chatty', ...source }).allowed
  return { allowed, delivery: tk.kernel.services.require<DeliveryService>(DELIVERY_SERVICE) }
}

test('allowed_users and group_allowed_users from the config, as a list or a comma string', async (t) => {
  const { allowed } = await kernel(t, { allowed_users: [111, '222'], group_allowed_users: '333, 444' })
  assert.equal(allowed({ userId: '111', chatId: '111', chatType: 'dm' }), true)
  assert.equal(allowed({ userId: '222', chatId: '222', chatType: 'dm' }), true)
  assert.equal(allowed({ userId: '333', chatId: '333', chatType: 'dm' }), false, 'a group list opens no DM')
  assert.equal(allowed({ userId: '444', chatId: '-100', chatType: 'group' }), true)
  assert.equal(allowed({ userId: '111', chatId: '-100', chatType: 'group' }), false)
})

test('the variable wins over the config; allow_all_users true opens DMs', async (t) => {
  const { allowed } = await kernel(t, { allowed_users: ['111'] }, { CHATTY_ALLOWED_USERS: '999' })
  assert.equal(allowed({ userId: '111', chatId: '111', chatType: 'dm' }), false)
  assert.equal(allowed({ userId: '999', chatId: '999', chatType: 'dm' }), true)
  const open = await kernel(t, { allow_all_users: true })
  assert.equal(open.allowed({ userId: '5', chatId: '5', chatType: 'dm' }), true)
  const closed = await kernel(t, { allow_all_users: false })
  assert.equal(closed.allowed({ userId: '5', chatId: '5', chatType: 'dm' }), false)
})

test('home_channel from the config is where a delivery without a chat goes', async (t) => {
  const { delivery } = await kernel(t, { home_channel: -1001234, home_channel_name: 'Ops' })
  assert.deepEqual(delivery.homeChannel('chatty'), { platform: 'chatty', chatId: '-1001234', name: 'Ops' })
  const env = await kernel(t, { home_channel: '1' }, { CHATTY_HOME_CHANNEL: '2' })
  assert.equal(env.delivery.homeChannel('chatty')?.chatId, '2')
})
