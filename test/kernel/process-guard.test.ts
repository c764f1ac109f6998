// The process guard: a stack names its owning extension (the innermost frame in an extension's
// folder, not its node_modules); and the real `agent gateway run` survives a user extension that
// throws from a timer and one that leaves a rejection unhandled — /health answers, the log names
// both, and the kernel's state shows both failed while a well-behaved extension stays loaded.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, sep } from 'node:path'
import { test } from 'node:test'
import { ownerOfStack, stackFiles } from '../../kernel/process-guard.ts'
import { defineExtension, type ExtensionInfo } from '../../sdk/index.ts'
import { createTestKernel, makeTempHome } from '../../sdk/testing/index.ts'
import { startAgent } from '../helpers/agent-process.ts'
import { deferrals } from '../helpers/teardown.ts'

const info = (name: string, path: string): ExtensionInfo => ({ name, version: '1.0.0', source: 'user', state: 'loaded', path })

test('the owner is the innermost frame inside an extension folder; sdk, kernel and node_modules frames are skipped', () => {
  const root = `${sep}agent`
  const extensions = [info('http', `${root}/extensions/http`), info('http-extra', `${root}/extensions/http-extra`), info('inline', '<inline>')]
  const stack = [
    'Error: boom',
    `    at check (${root}/sdk/http.ts:10:5)`,
    `    at ${root}/extensions/http-extra/node_modules/lib/index.js:1:1`,
    `    at Timeout._onTimeout (file://${root}/extensions/http-extra/index.ts:3:9)`,
    `    at ${root}/extensions/http/server.ts:5:5`,
    '    at listOnTimeout (node:internal/timers:573:17)',
  ].join('\n')
  assert.deepEqual(stackFiles(stack), [`${root}/sdk/http.ts`, `${root}/extensions/http-extra/node_modules/lib/index.js`, `${root}/extensions/http-extra/index.ts`, `${root}/extensions/http/server.ts`])
  assert.equal(ownerOfStack(stack, extensions), 'http-extra')
  // A folder whose name merely starts like another's is not inside it.
  assert.equal(ownerOfStack(`Error\n    at f (${root}/extensions/http-extras/index.ts:1:1)`, extensions), undefined)
  assert.equal(ownerOfStack('Error\n    at listOnTimeout (node:internal/timers:573:17)', extensions), undefined)
  assert.equal(ownerOfStack(undefined, extensions), undefined)
})

test('kernel.isolate marks a loaded extension failed and removes what it registered; the others keep theirs', async (t) => {
  let aborted = false
  const noisy = defineExtension({ name: 'noisy', setup(api) {
    api.commands.register({ name: 'noisy-cmd', category: 'Test', description: 'x', cli: { run() {} } })
    api.signal.addEventListener('abort', () => (aborted = true))
  } })
  const calm = defineExtension({ name: 'calm', setup(api) { api.commands.register({ name: 'calm-cmd', category: 'Test', description: 'x', cli: { run() {} } }) } })
  const tk = await createTestKernel({ extensions: [noisy, calm] })
  t.after(tk.close)
  assert.equal(await tk.kernel.isolate('noisy', 'uncaught exception: boom'), true)
  const noisyInfo = tk.kernel.extensions().find((e) => e.name === 'noisy')
  assert.deepEqual([noisyInfo?.state, noisyInfo?.reason], ['failed', 'uncaught exception: boom'])
  assert.equal(tk.kernel.registries.commands.get('noisy-cmd'), undefined)
  assert.ok(tk.kernel.registries.commands.get('calm-cmd'))
  assert.equal(aborted, true)
  // Already failed, or unknown: nothing to do.
  assert.equal(await tk.kernel.isolate('noisy', 'again'), false)
  assert.equal(await tk.kernel.isolate('nobody', 'x'), false)
})

function userExtension(home: string, name: string, body: string): void {
  const dir = join(home, 'extensions', name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), body)
}

test('`agent gateway run` stays up when extensions throw from a timer and leave a rejection unhandled', async (t) => {
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  // Both misbehave only once the gateway is ready, so the listener is up to answer afterwards.
  userExtension(home, 'timer-thrower', `export default { name: 'timer-thrower', setup(api) {
    api.hooks.ready.tap(() => { setTimeout(() => { throw new Error('timer exploded') }, 300) })
  } }\n`)
  userExtension(home, 'lost-promise', `async function later() { throw new Error('nobody caught this') }
export default { name: 'lost-promise', setup(api) {
    api.hooks.ready.tap(() => { setTimeout(() => { later() }, 300) })
  } }\n`)
  // The kernel's state, seen from inside the gateway process.
  userExtension(home, 'inspector', `export default { name: 'inspector', setup(api) {
    api.endpoints.register({ listener: 'api', method: 'GET', path: '/inspect', auth: 'none', handler(ctx) { ctx.body = api.extensions() } })
  } }\n`)
  const gateway = startAgent(['gateway', 'run'], { home, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0' } })
  defer(() => gateway.stop())
  const url = (await gateway.waitFor(/listening: api on (http:\/\/\S+)/))[1]!
  await gateway.waitFor(/uncaught exception in extension "timer-thrower": timer exploded/)
  await gateway.waitFor(/unhandled rejection in extension "lost-promise": nobody caught this/)
  await gateway.waitFor(/extension "lost-promise" isolated/)
  await gateway.waitFor(/extension "timer-thrower" isolated/)
  const health = await fetch(`${url}/health`)
  assert.equal(health.status, 200)
  const states = Object.fromEntries(((await (await fetch(`${url}/inspect`)).json()) as ExtensionInfo[]).map((e) => [e.name, e]))
  assert.equal(states['timer-thrower']?.state, 'failed')
  assert.match(states['timer-thrower']?.reason ?? '', /uncaught exception: timer exploded/)
  assert.equal(states['lost-promise']?.state, 'failed')
  assert.equal(states['inspector']?.state, 'loaded')
  assert.equal(states['api-server']?.state, 'loaded')
  assert.equal(gateway.child.exitCode, null)
})
