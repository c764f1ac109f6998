// A prompt waiting for its answer is kept in the gateway's inbox (so a restart runs it again): with
// the known secrets (settings' secrets, here DEPLOY_TOKEN from the environment) replaced by their
// markers, on both storage backends. The turn under way runs the text as sent; the replay after a
// restart runs the redacted text. A look-alike (no secret) is kept and replayed unchanged.

import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, defineExtension, STORAGE_SERVICE, type DatabaseService, type RunRequest, type StorageService } from '../../../sdk/index.ts'
import { backendSkip, createTestKernel, fakeAdapter, runGateway, STORAGE_BACKENDS, testStorage, type TestKernel, type TestStorage } from '../../../sdk/testing/index.ts'
import { PgContinuityStore } from '../../../extensions/gateway/continuity-store-pg.ts'
import { SqliteContinuityStore } from '../../../extensions/gateway/continuity-store-sqlite.ts'
import type { ContinuityStore } from '../../../extensions/gateway/continuity-store.ts'
import { until } from '../../helpers/until.ts'

const SECRET = 'dpl-7f3k9QxW2mZ8rT5vLq'
const MARKER = '[REDACTED:DEPLOY_TOKEN]'
/** The secret with its last character changed: no secret at all. */
const LOOKALIKE = 'dpl-7f3k9QxW2mZ8rT5vLr'

/**
 * A runtime whose runs wait until `released` (when given): the turns of a process that died before
 * answering. Such a kernel cannot be closed while its runs wait (unloading waits for calls into
 * the runtime), so the "restart" is a second kernel on the same storage, the first one left hanging.
 */
function heldRuntime(released?: Promise<void>) {
  const runs: RunRequest[] = []
  const definition = defineExtension({
    name: 'test-held-runtime',
    setup(api) {
      api.services.provide('runtime', {
        async run(request: RunRequest) {
          runs.push(request)
          await released
          return { sessionId: request.sessionId ?? `s${runs.length}`, answer: `echo: ${String(request.input)}`, exitReason: 'completed', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, apiCalls: 1, model: 'm', provider: 'p', toolTrace: [] }
        },
      })
    },
  })
  return { runs, definition }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`pending prompts keep no known secret [${backend}]`, { skip: backendSkip(backend) }, () => {
    async function setup(t: TestContext) {
      const home = mkdtempSync(join(tmpdir(), 'agent-pending-secrets-'))
      const kernels: TestKernel[] = []
      const drops: Array<() => unknown> = []
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      // Held runs end first (a kernel closes once its runs did), kernels close before their
      // database is dropped, and the home goes last.
      t.after(async () => {
        release()
        for (const k of kernels.reverse()) await k.close()
        for (const drop of drops) await drop()
        rmSync(home, { recursive: true, force: true })
      })
      const storage: TestStorage = await testStorage({ after: (fn: () => unknown) => void drops.push(fn) } as unknown as TestContext, backend)
      /** A kernel on the test's storage; with `held`, its runs wait until `release`. */
      const start = async (held = false) => {
        const fake = fakeAdapter()
        const runtime = heldRuntime(held ? released : undefined)
        const k = await createTestKernel({
          home,
          builtins: ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db'],
          extensions: [fake.definition, runtime.definition],
          env: { GATEWAY_ALLOWED_USERS: 'u1', DEPLOY_TOKEN: SECRET },
          config: storage.config,
          kernel: { logLevel: 'info', logSink: { write() {} } },
        })
        kernels.push(k)
        const services = k.kernel.services
        const store: ContinuityStore =
          backend === 'postgres'
            ? new PgContinuityStore(() => services.require<StorageService>(STORAGE_SERVICE).postgres())
            : new SqliteContinuityStore(() => services.require<DatabaseService>(DATABASE_SERVICE))
        /** Every text column of the inbox, read from the database itself. */
        const inboxTexts = async () =>
          backend === 'postgres'
            ? (await services.require<StorageService>(STORAGE_SERVICE).postgres().query<{ text: string | null }>('SELECT text FROM gateway_inbox')).map((r) => r.text)
            : (services.require<DatabaseService>(DATABASE_SERVICE).db().prepare('SELECT text FROM gateway_inbox').all() as Array<{ text: string | null }>).map((r) => r.text)
        return { k, fake, runs: runtime.runs, store, inboxTexts }
      }
      return { start, release }
    }

    test('a pasted secret is kept redacted, a look-alike as sent; after a restart both are answered', async (t) => {
      const { start, release } = await setup(t)
      const first = await start(true)
      const withSecret = `deploy with ${SECRET} please`
      const lookalike = `deploy with ${LOOKALIKE} please`
      assert.equal((await first.fake.inbound({ userId: 'u1', chatId: 'c1' }, withSecret, 'm-1')).status, 'queued')
      assert.equal((await first.fake.inbound({ userId: 'u1', chatId: 'c3' }, lookalike, 'm-2')).status, 'queued')
      await until(() => first.runs.length === 2, 10_000, 'both turns under way')
      // The turns under way run the text as sent (the runtime redacts what the model reads).
      assert.deepEqual(first.runs.map((r) => r.input), [withSecret, lookalike])

      // What the store keeps, read through its own API and from the database itself.
      const pending = await first.store.pendingPrompts()
      assert.deepEqual(pending.map((p) => [p.source.chatId, p.text]), [['c1', `deploy with ${MARKER} please`], ['c3', lookalike]])
      const texts = await first.inboxTexts()
      assert.ok(!JSON.stringify(texts).includes(SECRET), JSON.stringify(texts))

      // That process dies with both turns unanswered; the next start answers them, from what was kept.
      const second = await start()
      const gw = await runGateway(second.k)
      await until(() => second.fake.sent.length === 2, 10_000, () => JSON.stringify(second.fake.sent))
      assert.deepEqual(second.runs.map((r) => r.input).sort(), [`deploy with ${MARKER} please`, lookalike].sort())
      assert.deepEqual(second.fake.sent.map((s) => [s.chatId, s.text]).sort(), [['c1', `echo: deploy with ${MARKER} please`], ['c3', `echo: ${lookalike}`]].sort())
      assert.deepEqual(await second.store.pendingPrompts(), [])
      assert.ok(!JSON.stringify(await second.inboxTexts()).includes(SECRET))
      await gw.stop()
      // The first process's turns end after all: their answers are dropped (answered already).
      release()
      await first.k.close()
      assert.deepEqual(first.fake.sent, [])
    })
  })
}
