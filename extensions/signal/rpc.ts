// The daemon's request side: JSON-RPC 2.0 over `POST /api/v1/rpc` (send, sendTyping, getAttachment)
// and `GET /api/v1/check`. Failures become one-line AgentErrors with phone numbers redacted; a 404
// on the check names the likely mistake (another REST wrapper instead of `signal-cli daemon --http`).

import { AgentError, ConfigError, errorMessage, linkAbortWithTimeout, redactPhonesIn } from 'agent/sdk'
import type { Daemon } from './settings.ts'

export const WRONG_WRAPPER =
  'SIGNAL_HTTP_URL answers 404 on /api/v1/check: it looks like another Signal REST wrapper (such as signal-cli-rest-api), not signal-cli\'s own HTTP daemon. Run `signal-cli -a <number> daemon --http 127.0.0.1:8080` and point SIGNAL_HTTP_URL at it'

let nextId = 1

const describe = (error: unknown) => redactPhonesIn(errorMessage(error))

/** The check answered: true; a 404 throws a ConfigError (wrong wrapper) when `firstCheck`; anything else throws E_UNAVAILABLE. */
export async function checkDaemon(daemon: Daemon, options: { firstCheck?: boolean; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const link = linkAbortWithTimeout(options.timeoutMs ?? 10_000, options.signal)
  let response: Response
  try {
    response = await fetch(`${daemon.url}/api/v1/check`, { signal: link.signal })
    await response.arrayBuffer().catch(() => undefined)
  } catch (error) {
    throw new AgentError('E_UNAVAILABLE', `the signal-cli daemon at ${daemon.url} is unreachable: ${describe(error)}`, { cause: error })
  } finally {
    link.dispose()
  }
  if (response.status === 404 && options.firstCheck) throw new ConfigError(WRONG_WRAPPER)
  if (!response.ok) throw new AgentError('E_UNAVAILABLE', `the signal-cli daemon at ${daemon.url} failed its check (HTTP ${response.status})`)
}

export interface RpcOptions {
  timeoutMs?: number
  signal?: AbortSignal
}

/** Calls one method for SIGNAL_ACCOUNT; resolves with its `result`. */
export async function rpc<T = unknown>(daemon: Daemon, method: string, params: Record<string, unknown>, options: RpcOptions = {}): Promise<T> {
  const id = nextId++
  const link = linkAbortWithTimeout(options.timeoutMs ?? 30_000, options.signal)
  let status: number
  let text: string
  try {
    const response = await fetch(`${daemon.url}/api/v1/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method, params: { account: daemon.account, ...params }, id }),
      signal: link.signal,
    })
    status = response.status
    text = await response.text()
  } catch (error) {
    throw new AgentError('E_UNAVAILABLE', `signal-cli ${method} failed: ${describe(error)}`, { cause: error })
  } finally {
    link.dispose()
  }
  let body: { result?: T; error?: { code?: number; message?: string } } | undefined
  try {
    body = JSON.parse(text) as typeof body
  } catch {}
  if (body?.error) throw new AgentError('E_DELIVERY', `signal-cli ${method} failed: ${redactPhonesIn(body.error.message ?? `error ${body.error.code}`)}`)
  if (status < 200 || status >= 300 || !body) throw new AgentError('E_UNAVAILABLE', `signal-cli ${method} failed: HTTP ${status}${text ? ` ${redactPhonesIn(text.slice(0, 200))}` : ''}`)
  return body.result as T
}
