// browser_navigate, browser_snapshot, browser_click and browser_type on the attached browser's
// active page. Navigation is refused for blocked sites, and a page that ends on one is left.

import { websitePolicy, type Settings, type ToolDefinition } from 'agent/sdk'
import type { BrowserSession } from './session.ts'
import { snapshot } from './snapshot.ts'

export interface BrowserConfig {
  cdp_url: string
  timeout: number
  max_snapshot_chars: number
}

export function browserTools(session: BrowserSession, settings: Settings, config: BrowserConfig): ToolDefinition[] {
  const timeoutMs = config.timeout * 1000
  const available = () => (session.connected ? true : 'no browser is attached (/browser connect)')
  const refLocator = (ref: unknown) => {
    if (typeof ref !== 'string' && typeof ref !== 'number') throw new Error('a "ref" from browser_snapshot is required')
    if (!/^\d+$/.test(String(ref))) throw new Error(`invalid ref "${ref}": use a number from browser_snapshot`)
    return session.activePage().locator(`[data-agent-ref="${ref}"]`)
  }
  const ensureAllowed = async () => {
    const page = session.activePage()
    const verdict = websitePolicy(settings).check(page.url())
    if (verdict.blocked && /^https?:/i.test(page.url())) {
      await page.goto('about:blank').catch(() => undefined)
      throw new Error(verdict.message)
    }
  }
  const after = async () => {
    const page = session.activePage()
    // A click or Enter may start a navigation after the action returned: wait it out and retry.
    for (let attempt = 1; ; attempt++) {
      await page.waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => undefined)
      await ensureAllowed()
      try {
        return await snapshot(page, config.max_snapshot_chars)
      } catch (error) {
        if (attempt >= 5 || !/context was destroyed|navigat/i.test((error as Error).message)) throw error
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }
  const base = { toolset: 'browser', available }
  return [
    {
      ...base,
      name: 'browser_navigate',
      description: 'Open a URL in the attached browser and return a snapshot of the page (interactive elements carry refs).',
      parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
      async execute({ input }) {
        const url = String((input as { url?: unknown })?.url ?? '').trim()
        if (!/^(https?:\/\/|about:)/i.test(url)) throw new Error('browser_navigate needs an http(s) URL')
        const verdict = websitePolicy(settings).check(url)
        if (verdict.blocked) throw new Error(verdict.message)
        const page = session.activePage()
        session.lastBlocked = undefined
        try {
          await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs })
        } catch (error) {
          // A redirect to a blocked site is aborted by the page's route guard: say why.
          await ensureAllowed()
          const landed = websitePolicy(settings).check(page.url())
          if (/ERR_BLOCKED_BY_CLIENT/.test((error as Error).message)) throw new Error(landed.message ?? (session.lastBlocked ? `${session.lastBlocked} (reached by a redirect)` : 'Blocked by website policy (a redirect led to a blocked site)'))
          throw error
        }
        return after()
      },
    },
    {
      ...base,
      name: 'browser_snapshot',
      description: 'Return a text snapshot of the current page: headings, text and interactive elements with refs.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      async execute() {
        return after()
      },
    },
    {
      ...base,
      name: 'browser_click',
      description: 'Click the element with the given ref (from the latest snapshot); returns the new snapshot.',
      parameters: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'], additionalProperties: false },
      async execute({ input }) {
        await refLocator((input as { ref?: unknown })?.ref).click({ timeout: timeoutMs })
        await session.activePage().waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => undefined)
        return after()
      },
    },
    {
      ...base,
      name: 'browser_type',
      description: 'Type text into the input with the given ref; submit=true presses Enter afterwards. Returns the new snapshot.',
      parameters: { type: 'object', properties: { ref: { type: 'string' }, text: { type: 'string' }, submit: { type: 'boolean' } }, required: ['ref', 'text'], additionalProperties: false },
      async execute({ input }) {
        const { ref, text, submit } = (input ?? {}) as { ref?: unknown; text?: unknown; submit?: boolean }
        if (typeof text !== 'string') throw new Error('browser_type needs "text"')
        const locator = refLocator(ref)
        await locator.fill(text, { timeout: timeoutMs })
        if (submit) {
          await locator.press('Enter', { timeout: timeoutMs })
          await session.activePage().waitForLoadState('domcontentloaded', { timeout: timeoutMs }).catch(() => undefined)
        }
        return after()
      },
    },
  ] as ToolDefinition[]
}
