// The attached browser: a DevTools (CDP) connection made with playwright-core to a browser that is
// already running (nothing is launched or downloaded). One connection per extension instance; the
// active page is the first page of the first context (a new page when there is none). The website
// policy is enforced on every request of that page while a blocklist is configured.

import { websitePolicy, type Settings } from 'agent/sdk'
import type { Browser, Page } from 'playwright-core'

export class BrowserSession {
  private browser: Browser | undefined
  private page: Page | undefined
  private endpoint: string | undefined
  /** Why the guard last failed a request (a redirect hop the page itself never shows). */
  lastBlocked: string | undefined

  constructor(private readonly settings: Settings) {}

  get connected(): boolean {
    return Boolean(this.browser?.isConnected())
  }

  get url(): string | undefined {
    return this.endpoint
  }

  async connect(endpoint: string, timeoutMs: number): Promise<Page> {
    if (this.connected) await this.disconnect()
    const { chromium } = await import('playwright-core')
    const browser = await chromium.connectOverCDP(endpoint, { timeout: timeoutMs })
    browser.on('disconnected', () => {
      if (this.browser === browser) {
        this.browser = undefined
        this.page = undefined
      }
    })
    this.browser = browser
    this.endpoint = endpoint
    const context = browser.contexts()[0] ?? (await browser.newContext())
    const page = context.pages()[0] ?? (await context.newPage())
    await this.guard(page)
    this.page = page
    return page
  }

  /** Drops the connection; the browser itself keeps running. */
  async disconnect(): Promise<boolean> {
    const browser = this.browser
    this.browser = undefined
    this.page = undefined
    if (!browser) return false
    // For a CDP connection close() only disconnects (playwright does not own the process).
    await browser.close().catch(() => undefined)
    return true
  }

  activePage(): Page {
    if (!this.connected || !this.page || this.page.isClosed()) throw new Error('no browser is attached: run /browser connect first (a browser started with --remote-debugging-port)')
    return this.page
  }

  async pages(): Promise<number> {
    return this.browser?.contexts().reduce((n, c) => n + c.pages().length, 0) ?? 0
  }

  /**
   * Fails requests to blocked sites (navigations, every redirect hop, subresources) on this page,
   * through the DevTools Fetch domain (playwright's page.route does not see redirect hops).
   */
  private async guard(page: Page): Promise<void> {
    const cdp = await page.context().newCDPSession(page)
    cdp.on('Fetch.requestPaused', (event: { requestId: string; request: { url: string } }) => {
      const verdict = /^https?:/i.test(event.request.url) ? websitePolicy(this.settings).check(event.request.url) : { blocked: false }
      if (verdict.blocked) this.lastBlocked = verdict.message
      const reply = verdict.blocked ? cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' }) : cdp.send('Fetch.continueRequest', { requestId: event.requestId })
      reply.catch(() => undefined)
    })
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] })
  }
}
