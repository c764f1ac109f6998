// `agent dashboard` for real: serves the dashboard alone and prints a one-time link that signs a
// browser in; with a gateway already serving it, prints a link to that one instead.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { makeTempHome } from '../../../sdk/testing/index.ts'
import { runAgent, startAgent } from '../../helpers/agent-process.ts'
import { deferrals } from '../../helpers/teardown.ts'

const LINK = /(http:\/\/127\.0\.0\.1:\d+)\/auth\?token=[\w-]+/

test('`agent dashboard` prints a link that signs in once; `agent gateway run` serves it when enabled and the command links to it', async (t) => {
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  const alone = startAgent(['dashboard', '--no-open'], { home, env: { DASHBOARD_PORT: '0' } })
  defer(() => alone.stop())
  const [link, base] = await alone.waitFor(LINK)
  assert.equal((await fetch(base + '/api/me')).status, 401)
  const signIn = await fetch(link, { redirect: 'manual' })
  assert.equal(signIn.status, 303)
  assert.equal((await fetch(link, { redirect: 'manual' })).status, 401, 'used up')
  const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!
  assert.equal((await fetch(base + '/api/me', { headers: { cookie } })).status, 200)
  assert.equal(await alone.stop(), 0)

  const gateway = startAgent(['gateway', 'run'], { home, env: { DASHBOARD_ENABLED: 'true', DASHBOARD_PORT: '0' } })
  defer(() => gateway.stop())
  const [, served] = await gateway.waitFor(/listening: dashboard on (http:\/\/\S+)/)
  const command = startAgent(['dashboard', '--no-open'], { home })
  defer(() => command.stop())
  const [second, secondBase] = await command.waitFor(LINK)
  assert.equal(secondBase, served, 'links to the running gateway')
  assert.equal((await fetch(second, { redirect: 'manual' })).status, 303)
  await gateway.stop()
})

test('off loopback without DASHBOARD_KEY: `agent gateway run` and `agent dashboard` refuse to start, saying why', async (t) => {
  const home = makeTempHome()
  t.after(() => rmSync(home, { recursive: true, force: true }))
  const env = { DASHBOARD_ENABLED: 'true', DASHBOARD_PORT: '0', DASHBOARD_HOST: '0.0.0.0' }
  const gateway = await runAgent(['gateway', 'run'], { home, env, timeoutMs: 30_000 })
  assert.equal(gateway.code, 2, gateway.stderr)
  assert.match(gateway.stderr, /refusing to serve the dashboard on 0\.0\.0\.0 without DASHBOARD_KEY/)
  assert.doesNotMatch(gateway.stderr, /listening: dashboard/)
  const command = await runAgent(['dashboard', '--no-open'], { home, env, timeoutMs: 30_000 })
  assert.notEqual(command.code, 0)
  assert.match(command.stderr, /refusing to serve the dashboard on 0\.0\.0\.0 without DASHBOARD_KEY/)
  assert.doesNotMatch(command.stdout, /auth\?token=/)
})
