// The dashboard in a real browser against a real `agent gateway run` with a scripted model: sign
// in by the printed link (refused without it); a chat streams an answer with a tool call and an
// approval clicked; the session is listed and found by search; the usage plot draws the points
// `agent insights --json` has; a failed adapter shows its reason; a pairing request is approved;
// a setting changed is then seen by `agent config get`. A screenshot of each page is written to
// $TEST_ARTIFACTS_DIR (else into the test's temporary home, removed afterwards).

import assert from 'node:assert/strict'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { GATEWAY_AUTH_SERVICE, type GatewayAuthService } from '../../../sdk/index.ts'
import { createTestKernel, makeTempHome, startScriptedModel } from '../../../sdk/testing/index.ts'
import { jsonOf, runAgent, startAgent } from '../../helpers/agent-process.ts'
import { findChromium, launchChromium } from './browser.ts'
import { deferrals } from '../../helpers/teardown.ts'

test('the dashboard in Chromium against `agent gateway run`', async (t) => {
  const executablePath = findChromium()
  if (!executablePath) return t.skip('chromium not found (apt-get install -y chromium, or set CHROMIUM_PATH)')
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  const shots = process.env.TEST_ARTIFACTS_DIR ? join(process.env.TEST_ARTIFACTS_DIR, 'dashboard') : join(home, 'screenshots')
  mkdirSync(shots, { recursive: true })
  t.diagnostic(`screenshots in ${shots}`)

  const model = await startScriptedModel()
  defer(() => model.close())
  model.enqueue({ toolCalls: [{ id: 'call_zebra', name: 'terminal', arguments: { command: 'rm -rf ./zebra-folder' } }] }, { text: 'Removed the zebra folder as asked.', chunkSize: 4 })
  const env = {
    DASHBOARD_ENABLED: 'true',
    DASHBOARD_PORT: '0',
    AGENT_INFERENCE_PROVIDER: 'custom',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-scripted-model-key-000',
    AGENT_MODEL: 'scripted-model',
    // A platform that cannot connect (nothing listens on port 9): it shows as down with its reason.
    MATRIX_HOMESERVER: 'http://127.0.0.1:9',
    MATRIX_ACCESS_TOKEN: 'syt_dashboard_test_token_0000',
  }
  const gateway = startAgent(['gateway', 'run'], { home, env })
  defer(() => gateway.stop())
  const [, base] = await gateway.waitFor(/listening: dashboard on (http:\/\/\S+)/)
  await gateway.waitFor(/adapter "matrix" is down/)

  const printed = await runAgent(['dashboard', '--no-open'], { home, env: { DASHBOARD_PORT: '0' } })
  assert.equal(printed.code, 0, printed.stderr)
  const link = /http:\/\/\S+\/auth\?token=\S+/.exec(printed.stdout)![0]
  assert.ok(link.startsWith(base!))

  const browser = await launchChromium(executablePath)
  defer(() => browser.close())
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } })
  page.setDefaultTimeout(20_000)
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(e.message))
  page.on('console', (m) => m.type() === 'error' && !/401|403|Failed to load resource/.test(m.text()) && problems.push(m.text()))

  // Without the link: the sign-in page, no data.
  await page.goto(base!)
  await page.locator('#signin').waitFor()
  await page.screenshot({ path: join(shots, 'signin.png') })
  // With it: signed in, on the chat page.
  await page.goto(link)
  await page.locator('#nav-chat[aria-current="page"]').waitFor()
  assert.equal(new URL(page.url()).search, '', 'the token left the address bar')

  // Chat: the tool call waits for approval, the click lets it run, the answer streams in.
  await page.fill('#chat-input', 'please remove the zebra folder')
  await page.keyboard.press('Enter')
  const approve = page.locator('button[id^="approve-"]')
  await approve.waitFor().catch(async (error) => {
    await page.screenshot({ path: join(shots, 'chat-failed.png') })
    throw new Error(`${error.message}\npage: ${await page.locator('#page').textContent()}\nproblems: ${problems.join('; ')}\ngateway: ${gateway.stderr().slice(-2000)}\nmodel: ${model.requests.length} ${JSON.stringify(model.requests.map((r: any) => r.body?.messages?.at(-1)))}\napprovals: ${await page.evaluate(() => fetch('/api/approvals').then((r) => r.text()))}`)
  })
  await page.screenshot({ path: join(shots, 'chat-approval.png') })
  await approve.click()
  await page.locator('.msg.assistant', { hasText: 'Removed the zebra folder as asked.' }).waitFor()
  await page.locator('.msg.tool summary', { hasText: 'terminal' }).waitFor()
  assert.match(await page.locator('.msg.tool').first().textContent() ?? '', /rm -rf \.\/zebra-folder/)
  const sessionId = (await page.locator('#chat-session').textContent())!.trim()
  await page.screenshot({ path: join(shots, 'chat.png') })

  // Sessions: listed, and found by full-text search with the hit marked.
  await page.click('#nav-sessions')
  await page.locator('#sessions-table td', { hasText: 'dashboard' }).first().waitFor()
  await page.fill('#session-search', 'zebra')
  await page.keyboard.press('Enter')
  await page.locator('#search-hits mark', { hasText: 'zebra' }).first().waitFor()
  assert.ok(await page.locator(`#search-hits a[href="#/sessions/${encodeURIComponent(sessionId)}"]`).count() > 0)
  await page.screenshot({ path: join(shots, 'sessions.png'), fullPage: true })

  // Usage: the per-day plot has as many points as `agent insights --json` has days.
  const insights = jsonOf(await runAgent(['insights', '--json', '--days', '30'], { home }))
  await page.click('#nav-usage')
  const chart = page.locator('#chart-daily-tokens[data-points]')
  await chart.waitFor()
  assert.equal(Number(await chart.getAttribute('data-points')), insights.daily.length)
  assert.ok(insights.daily.length >= 1)
  assert.equal(await page.locator('#chart-daily-tokens canvas').count(), 1)
  assert.match((await page.locator('#usage-totals').textContent())!, new RegExp(`${insights.sessions} sessions`))
  await page.screenshot({ path: join(shots, 'usage.png'), fullPage: true })

  // Gateway: the failed adapter with its reason; a pairing request approved by its code.
  const auth = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], home })
  defer(() => auth.close())
  const pairing = auth.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  const issued = (await pairing.requestPairing({ platform: 'telegram', userId: '777', userName: 'Grace', chatId: '777', chatType: 'dm' } as never))!
  await page.click('#nav-gateway')
  const matrix = page.locator('#adapters tr[data-adapter="matrix"]')
  await matrix.waitFor()
  assert.match((await matrix.textContent())!, /retrying.*cannot reach the Matrix homeserver/s)
  await page.locator('#pairing-pending li', { hasText: 'Grace' }).waitFor()
  await page.screenshot({ path: join(shots, 'gateway.png'), fullPage: true })
  await page.fill('#pairing-code', issued.code)
  await page.click('#pairing-approve')
  await page.locator('#gateway-message', { hasText: 'Done.' }).waitFor()
  assert.ok((await pairing.approved()).some((p) => p.userId === '777'))

  // Settings: a bad value refused, a good one saved and seen by `agent config get`.
  await page.click('#nav-settings')
  await page.fill('#setting-key', 'platforms.dashboard.extra.session_hours')
  await page.fill('#setting-value', 'lots')
  await page.click('#setting-save')
  await page.locator('#setting-message.error').waitFor()
  await page.fill('#setting-value', '8')
  await page.click('#setting-save')
  await page.locator('#setting-message.ok', { hasText: 'Saved' }).waitFor()
  await page.screenshot({ path: join(shots, 'settings.png'), fullPage: true })
  const got = await runAgent(['config', 'get', 'platforms.dashboard.extra.session_hours'], { home })
  assert.equal(got.stdout.trim(), '8')

  // Keyboard: from the top of the page, Tab reaches the navigation and Enter follows it.
  await page.goto(`${base}/#/chat`)
  await page.reload()
  await page.locator('#chat-input').waitFor()
  await page.keyboard.press('Tab')
  await page.keyboard.press('Tab')
  await page.locator('#nav-sessions:focus').waitFor()
  await page.keyboard.press('Enter')
  await page.locator('#nav-sessions[aria-current="page"]').waitFor()

  // Narrow screen and dark theme: nothing wider than the screen, the theme switch applies.
  await page.setViewportSize({ width: 380, height: 800 })
  await page.click('#nav-chat')
  await page.locator('#chat-input').waitFor()
  await page.click('button.theme') // auto → light
  await page.click('button.theme') // light → dark
  await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached' })
  // Run in the page (globalThis there is the window; no DOM types here: the test is compiled for Node).
  assert.equal(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor), 'rgb(22, 23, 26)')
  assert.ok(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= 380), 'no sideways scrolling on a narrow screen')
  await page.screenshot({ path: join(shots, 'chat-narrow-dark.png') })
  assert.deepEqual(problems, [])
})
