// The allowlists and the home channel under platforms.<name>.extra in config.yaml (allowed_users,
// group_allowed_users, allow_all_users, home_channel): read when the variable is unset, the variable
// winning when both are set; a list or a comma string both work.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DELIVERY_SERVICE, GATEWAY_AUTH_SERVICE, type DeliveryService, type GatewayAuthService, type MessageSource } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage, type TestStorage } from 'agent/sdk/testing'

async function kernel(t: TestContext, storage: TestStorage, extra: Record<string, unknown>, env: Record<string, string> = {}) {
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth', 'delivery'], env, config: { ...storage.config, platforms: { chatty: { extra } } } })
  t.after(() => tk.close())
  const service = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  const allowed = async (source: Omit<MessageSource, 'platform'>) => (await service.authorize({ platform: 'chatty', ...source })).allowed
  return { allowed, delivery: tk.kernel.services.require<DeliveryService>(DELIVERY_SERVICE) }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`config lists [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('allowed_users and group_allowed_users from the config, as a list or a comma string', async (t) => {
      const storage = await testStorage(t, backend)
      const { allowed } = await kernel(t, storage, { allowed_users: [111, '222'], group_allowed_users: '333, 444' })
      assert.equal(await allowed({ userId: '111', chatId: '111', chatType: 'dm' }), true)
      assert.equal(await allowed({ userId: '222', chatId: '222', chatType: 'dm' }), true)
      assert.equal(await allowed({ userId: '333', chatId: '333', chatType: 'dm' }), false, 'a group list opens no DM')
      assert.equal(await allowed({ userId: '444', chatId: '-100', chatType: 'group' }), true)
      assert.equal(await allowed({ userId: '111', chatId: '-100', chatType: 'group' }), false)
    })

    test('the variable wins over the config; allow_all_users true opens DMs', async (t) => {
      const storage = await testStorage(t, backend)
      const { allowed } = await kernel(t, storage, { allowed_users: ['111'] }, { CHATTY_ALLOWED_USERS: '999' })
      assert.equal(await allowed({ userId: '111', chatId: '111', chatType: 'dm' }), false)
      assert.equal(await allowed({ userId: '999', chatId: '999', chatType: 'dm' }), true)
      const open = await kernel(t, storage, { allow_all_users: true })
      assert.equal(await open.allowed({ userId: '5', chatId: '5', chatType: 'dm' }), true)
      const closed = await kernel(t, storage, { allow_all_users: false })
      assert.equal(await closed.allowed({ userId: '5', chatId: '5', chatType: 'dm' }), false)
    })

    test('home_channel from the config is where a delivery without a chat goes', async (t) => {
      const storage = await testStorage(t, backend)
      const { delivery } = await kernel(t, storage, { home_channel: -1001234, home_channel_name: 'Ops' })
      assert.deepEqual(delivery.homeChannel('chatty'), { platform: 'chatty', chatId: '-1001234', name: 'Ops' })
      const env = await kernel(t, storage, { home_channel: '1' }, { CHATTY_HOME_CHANNEL: '2' })
      assert.equal(env.delivery.homeChannel('chatty')?.chatId, '2')
    })
  })
}
