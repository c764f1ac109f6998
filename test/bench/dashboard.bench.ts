// The dashboard's chat page on loopback in headless Chromium (playwright-core), served by
// `agent dashboard`: first paint, first contentful paint and time to interactive (the message box
// and Send button ready), median of 15 cold loads (HTTP cache off), and the bytes transferred
// (compressed, as on the wire) for the first load of the chat page and of the usage page (which
// adds uPlot). The budget: a first load under 250 KB compressed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAgent } from '../helpers/agent-process.ts'
import { findChromium, launchChromium } from '../extensions/dashboard/browser.ts'

const LOADS = 15
const BUDGET_BYTES = 250 * 1024

const executablePath = findChromium()
if (!executablePath) {
  console.log('dashboard bench skipped: chromium not found (set CHROMIUM_PATH)')
  process.exit(0)
}
const home = mkdtempSync(join(tmpdir(), 'agent-bench-dashboard-'))
const agent = startAgent(['dashboard', '--no-open'], { home, env: { DASHBOARD_PORT: '0' } })
const browser = await launchChromium(executablePath)
try {
  const [link, base] = await agent.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/auth\?token=[\w-]+/, 30_000)
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(link!)
  await page.locator('#chat-input').waitFor({ timeout: 20_000 })

  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true })
  let bytes = 0
  let requests = 0
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => ((bytes += e.encodedDataLength), requests++))

  /** One cold load of a page: paint timings and when `ready` holds, in ms from navigation start; bytes on the wire. */
  const load = async (hash: string, ready: string) => {
    // From a blank page, so each load is a new document (a hash change alone loads nothing).
    await page.goto('about:blank')
    bytes = 0
    requests = 0
    await page.goto(`${base}/${hash}`, { waitUntil: 'load' })
    await page.locator(ready).first().waitFor({ timeout: 20_000 })
    const interactive = await page.evaluate(() => performance.now())
    // Let late module requests (lazy page modules, the stylesheet of uPlot) finish and be counted.
    await page.waitForLoadState('networkidle')
    const paints = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('paint' as never).map((p) => [p.name, p.startTime])))
    return { firstPaint: paints['first-paint'] ?? NaN, fcp: paints['first-contentful-paint'] ?? NaN, tti: interactive, bytes, requests }
  }
  // Interactive: the message box is there and Send is enabled (the page's module ran and rendered).
  const chatReady = '#chat-send:not([disabled])'
  const runs: Array<Awaited<ReturnType<typeof load>>> = []
  for (let i = 0; i < LOADS; i++) runs.push(await load('#/chat', chatReady))
  const median = (key: 'firstPaint' | 'fcp' | 'tti') => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!
  const chat = runs.at(-1)!
  const usage = await load('#/usage', '#chart-daily-tokens canvas')

  console.log(`dashboard chat page, ${LOADS} cold loads on loopback (median): first paint ${median('firstPaint').toFixed(0)} ms, first contentful paint ${median('fcp').toFixed(0)} ms, interactive ${median('tti').toFixed(0)} ms`)
  console.log(`first load transferred (compressed): chat ${(chat.bytes / 1024).toFixed(1)} KB in ${chat.requests} requests; usage page ${(usage.bytes / 1024).toFixed(1)} KB in ${usage.requests} requests (budget ${BUDGET_BYTES / 1024} KB)`)
  if (chat.bytes > BUDGET_BYTES || usage.bytes > BUDGET_BYTES) {
    console.error('over the 250 KB first-load budget')
    process.exitCode = 1
  }
} finally {
  await browser.close()
  await agent.stop()
  rmSync(home, { recursive: true, force: true })
}
