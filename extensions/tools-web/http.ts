// One JSON request to a web backend's REST API: timeout, abort, and errors as one line that names
// the status and never carries the key.

import { linkAbortWithTimeout, redactSecrets } from 'agent/sdk'

export interface JsonRequest {
  method: 'GET' | 'POST'
  url: string
  headers: Record<string, string>
  body?: unknown
  timeoutMs: number
  signal?: AbortSignal
  secrets: string[]
  backend: string
}

export async function requestJson<T>(request: JsonRequest): Promise<T> {
  const deadline = linkAbortWithTimeout(request.timeoutMs, request.signal)
  let response: Response
  let text: string
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: deadline.signal,
    })
    text = await response.text()
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${Math.round(request.timeoutMs / 1000)} s` : (error as Error).message
    throw new Error(redactSecrets(`${request.backend} request failed: ${reason}`, request.secrets), { cause: error })
  } finally {
    deadline.dispose()
  }
  if (!response.ok) {
    let detail = text.slice(0, 300)
    try {
      const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown }
      const message = parsed.error ?? parsed.message ?? parsed.detail
      if (message) detail = typeof message === 'string' ? message : JSON.stringify(message).slice(0, 300)
    } catch {
      // not JSON: keep the text
    }
    throw new Error(redactSecrets(`${request.backend} answered HTTP ${response.status}: ${detail}`, request.secrets))
  }
  try {
    return JSON.parse(text) as T
  } catch (error) {
    throw new Error(`${request.backend} answered with invalid JSON`, { cause: error })
  }
}
