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
