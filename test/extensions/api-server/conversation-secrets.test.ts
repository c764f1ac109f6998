// A `conversation` name is the key of a chain, stored as sent: one holding a known secret (here
// DEPLOY_TOKEN from the environment) is refused with 400 whose message does not repeat it, and
// nothing is stored or run; a look-alike name (the secret with its last character changed) chains.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { backendSkip, STORAGE_BACKENDS } from '../../../sdk/testing/index.ts'
import type { DatabaseService, StorageService } from '../../../sdk/index.ts'
import { post, startServer, type RunningServer } from './harness.ts'

const SECRET = 'dpl-7f3k9QxW2mZ8rT5vLq'
const LOOKALIKE = 'dpl-7f3k9QxW2mZ8rT5vLr'

async function tables(server: RunningServer): Promise<string> {
  const services = server.test.kernel.services
  const out: unknown[] = []
  for (const sql of ['SELECT * FROM api_server_conversations', 'SELECT * FROM api_server_responses']) {
    if (services.require<StorageService>('storage').backend === 'postgres') out.push(await services.require<StorageService>('storage').postgres().query(sql))
    else out.push(services.require<DatabaseService>('database').db().prepare(sql).all())
  }
  return JSON.stringify(out)
}

for (const backend of STORAGE_BACKENDS) {
  describe(`a conversation name holding a known secret [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('is refused with 400 (param conversation, the secret not repeated); a look-alike name chains', async (t) => {
      const server = await startServer(t, { storage: backend, env: { DEPLOY_TOKEN: SECRET } })
      const url = `${server.url}/v1/responses`
      for (const conversation of [`trip-${SECRET}`, { id: SECRET }]) {
        const refused = await post(url, { input: 'hi', conversation })
        assert.equal(refused.status, 400)
        assert.equal(refused.body.error.type, 'invalid_request_error')
        assert.equal(refused.body.error.param, 'conversation')
        assert.equal(refused.body.error.code, 'invalid_conversation')
        assert.ok(!JSON.stringify(refused.body).includes(SECRET.slice(4)), JSON.stringify(refused.body))
      }
      assert.equal(server.model.requests.length, 0, 'nothing ran')
      assert.ok(!(await tables(server)).includes(SECRET.slice(4)))

      const first = await post(url, { input: 'one', conversation: `trip-${LOOKALIKE}` })
      assert.equal(first.status, 200, JSON.stringify(first.body))
      assert.deepEqual(first.body.conversation, { id: `trip-${LOOKALIKE}` })
      const second = await post(url, { input: 'two', conversation: `trip-${LOOKALIKE}` })
      assert.equal(second.body.previous_response_id, first.body.id, 'the look-alike name chains')
      assert.ok((await tables(server)).includes(`trip-${LOOKALIKE}`))
    })
  })
}
