// The group rule of the allowlists: unset disables group chats, `*` opens them, a list allows the
// senders it names and the groups it names (Signal's group ids raw or as `group.<id>`); DMs are not
// opened by a group list, and a look-alike group id is refused.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { GATEWAY_AUTH_SERVICE, type GatewayAuthService, type MessageSource, type StorageBackend } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'

const GROUP = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
const OTHER = 'Qmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

async function auth(t: TestContext, backend: StorageBackend, env: Record<string, string>): Promise<(source: Omit<MessageSource, 'platform'>) => Promise<boolean>> {
  const storage = await testStorage(t, backend)
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], env, config: storage.config })
  t.after(() => tk.close())
  const service = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  return async (source) => (await service.authorize({ platform: 'signal', ...source })).allowed
}

const inGroup = (chatId: string, userId = '+15550001111') => ({ userId, chatId, chatType: 'group' as const })

for (const backend of STORAGE_BACKENDS) {
  describe(`group chats [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('no group list: every group message is refused, even from an allowed DM user', async (t) => {
      const allowed = await auth(t, backend, { SIGNAL_ALLOWED_USERS: '+15550001111' })
      assert.equal(await allowed({ userId: '+15550001111', chatId: '+15550001111', chatType: 'dm' }), true)
      assert.equal(await allowed(inGroup(`group.${GROUP}`)), false)
    })

    test('`*` opens every group', async (t) => {
      const allowed = await auth(t, backend, { SIGNAL_GROUP_ALLOWED_USERS: '*' })
      assert.equal(await allowed(inGroup(`group.${OTHER}`, '+15559999999')), true)
    })

    for (const listed of [GROUP, `group.${GROUP}`]) {
      test(`a group listed as ${listed.slice(0, 10)}…: that group is open, a look-alike group is not`, async (t) => {
        const allowed = await auth(t, backend, { SIGNAL_GROUP_ALLOWED_USERS: listed })
        assert.equal(await allowed(inGroup(`group.${GROUP}`)), true)
        assert.equal(await allowed(inGroup(GROUP)), true)
        assert.equal(await allowed(inGroup(`group.${OTHER}`)), false)
        // A group list never opens direct messages.
        assert.equal(await allowed({ userId: '+15550001111', chatId: '+15550001111', chatType: 'dm' }), false)
      })
    }

    test('a sender listed in the group list may talk in any group; others may not', async (t) => {
      const allowed = await auth(t, backend, { SIGNAL_GROUP_ALLOWED_USERS: '+1 555 000 1111' })
      assert.equal(await allowed(inGroup(`group.${OTHER}`, '+15550001111')), true)
      assert.equal(await allowed(inGroup(`group.${OTHER}`, '+15550002222')), false)
    })
  })
}
