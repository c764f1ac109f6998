// Shared by every page: the html tag, the API client (CSRF header on writes, JSON errors as
// exceptions) and small formatters.

import { h } from '/vendor/preact.mjs'
import htm from '/vendor/htm.mjs'

export const html = htm.bind(h)

let csrf = ''
export const setCsrf = (token) => (csrf = token)

export class ApiError extends Error {
  constructor(status, message) {
    super(message)
    this.status = status
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = { Accept: 'application/json' }
  if (method !== 'GET') headers['X-CSRF-Token'] = csrf
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
  const text = await res.text()
  let data
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    data = text
  }
  if (!res.ok) throw new ApiError(res.status, data?.error?.message ?? `HTTP ${res.status}`)
  return data
}

export const fmtTime = (ms) => (ms ? new Date(ms).toLocaleString() : '')
export const fmtNum = (n) => (n ?? 0).toLocaleString()
export const fmtCost = (n) => (n == null ? '' : `$${Number(n).toFixed(n < 1 ? 4 : 2)}`)

/** POSTs and reads the answer as server-sent events, calling onEvent(name, data) for each. */
export async function streamEvents(path, body, onEvent, signal) {
  const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf, Accept: 'text/event-stream' }, body: JSON.stringify(body), signal })
  if (!res.ok) {
    const data = await res.json().catch(() => undefined)
    throw new ApiError(res.status, data?.error?.message ?? `HTTP ${res.status}`)
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    let end
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let name = 'message'
      const data = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7)
        else if (line.startsWith('data: ')) data.push(line.slice(6))
      }
      if (data.length) onEvent(name, JSON.parse(data.join('\n')))
    }
  }
}

/** Text with the store's [bracketed] matches as <mark> (text nodes only: nothing is parsed as HTML). */
export function Highlighted({ text }) {
  const parts = String(text).split(/\[([^\]]*)\]/)
  return parts.map((part, i) => (i % 2 ? html`<mark>${part}</mark>` : part))
}

export const messageText = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n')
