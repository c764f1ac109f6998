// A text snapshot of the page for the model: title, URL, headings, text, and every interactive
// element tagged with a ref (`data-agent-ref`) that browser_click and browser_type take.

import type { Page } from 'playwright-core'

/**
 * Runs in the page: numbers the interactive elements and returns an outline. Kept as source text so
 * no transpiler helper (esbuild's __name, babel's) can leak into the page.
 */
const OUTLINE = String.raw`(() => {
  const lines = []
  let ref = 0
  const visible = (el) => {
    const style = getComputedStyle(el)
    const box = el.getBoundingClientRect()
    return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0
  }
  const label = (el) => (el.innerText || el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name') || el.value || '').trim().replace(/\s+/g, ' ').slice(0, 80)
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_ELEMENT)
  for (let el = walker.currentNode; el; el = walker.nextNode()) {
    const tag = el.tagName.toLowerCase()
    if (['script', 'style', 'noscript', 'template'].includes(tag) || !visible(el)) continue
    const interactive = ['a', 'button', 'input', 'textarea', 'select'].includes(tag) || el.getAttribute('role') === 'button' || el.hasAttribute('onclick') || el.isContentEditable
    if (interactive) {
      el.setAttribute('data-agent-ref', String(++ref))
      const kind = tag === 'a' ? 'link' : tag === 'input' ? 'input[' + el.type + ']' : tag
      const href = tag === 'a' ? ' -> ' + el.href : ''
      lines.push('[ref=' + ref + '] ' + kind + ' "' + label(el) + '"' + href)
      continue
    }
    if (/^h[1-6]$/.test(tag)) lines.push('#'.repeat(Number(tag[1])) + ' ' + label(el))
    else if (['p', 'li', 'td', 'th', 'pre', 'label', 'output', 'span', 'div'].includes(tag)) {
      const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent || '').join(' ').trim().replace(/\s+/g, ' ')
      if (own) lines.push(own.slice(0, 300))
    }
  }
  return lines.join('\n')
})()`

const CLEAR_REFS = `document.querySelectorAll('[data-agent-ref]').forEach((el) => el.removeAttribute('data-agent-ref'))`

export async function snapshot(page: Page, maxChars: number): Promise<{ url: string; title: string; content: string; truncated?: boolean }> {
  // Refs from an older snapshot must not point at the wrong element.
  await page.evaluate(CLEAR_REFS)
  const content = (await page.evaluate(OUTLINE)) as string
  const result = { url: page.url(), title: await page.title(), content: content.slice(0, maxChars) }
  return content.length > maxChars ? { ...result, truncated: true } : result
}
