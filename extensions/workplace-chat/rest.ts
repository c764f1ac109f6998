// DingTalk's HTTP side: replies to a session webhook (the reply address each robot message carries,
// valid for about 90 minutes, no token needed), the app access token (POST /v1.0/oauth2/accessToken),
// and the robot's proactive sends (POST /v1.0/robot/groupMessages/send to a group,
// /v1.0/robot/oToMessages/batchSend to a person by staff id). Errors are one line without secrets.

import { AgentError, DeliveryDeferred, redactSecrets } from 'agent/sdk'
import type { MarkdownMessage } from './markdown.ts'

export const DEFAULT_API_BASE = 'https://api.dingtalk.com'
export const DEFAULT_GATEWAY_URL = `${DEFAULT_API_BASE}/v1.0/gateway/connections/open`
const TIMEOUT_MS = 30_000

export interface Credentials {
  clientId: string
  clientSecret: string
}

/** Why a fetch failed, in a few words (the cause's code, e.g. ECONNREFUSED), never a URL. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  if ((error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError') return 'timed out'
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}, timeoutMs = TIMEOUT_MS): Promise<{ status: number; data: any; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await response.text().catch(() => '')
  let data: any
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {}
  return { status: response.status, data, text }
}

/** `code: message` of a DingTalk OpenAPI error body, or its first characters. */
function describeError(data: any, text: string): string {
  if (data && typeof data === 'object') {
    const code = data.code ?? data.errcode
    const message = data.message ?? data.errmsg
    if (code !== undefined || message !== undefined) return [code, message].filter((v) => v !== undefined && v !== '').join(': ')
  }
  return text.slice(0, 200)
}

/** A rate limit or a server error may pass: the gateway's outbox retries it. */
const mayPass = (status: number) => status === 429 || status >= 500

/** Posts one markdown message to a session webhook; DingTalk answers 200 with errcode 0 on success. */
export async function postToSessionWebhook(url: string, message: MarkdownMessage, secrets: string[]): Promise<void> {
  let result: Awaited<ReturnType<typeof postJson>>
  try {
    result = await postJson(url, message)
  } catch (error) {
    throw new DeliveryDeferred(`DingTalk reply failed: ${redactSecrets(networkReason(error), secrets)}`, { cause: error })
  }
  const errcode = result.data?.errcode
  if (result.status >= 300 || (errcode !== undefined && Number(errcode) !== 0)) {
    const reason = `DingTalk reply failed (HTTP ${result.status}): ${redactSecrets(describeError(result.data, result.text), secrets)}`
    if (mayPass(result.status)) throw new DeliveryDeferred(reason)
    throw new AgentError('E_DELIVERY', reason)
  }
}

/** The app access token, cached until shortly before it expires (DingTalk gives 7,200 s). */
export class AccessTokens {
  private cached?: { token: string; expiresAt: number; key: string }
  /** One request at a time: concurrent replies share it. */
  private pending?: { key: string; promise: Promise<string> }

  async get(apiBase: string, credentials: Credentials, now = Date.now()): Promise<string> {
    const key = `${apiBase}\n${credentials.clientId}`
    if (this.cached && this.cached.key === key && this.cached.expiresAt > now) return this.cached.token
    if (this.pending?.key === key) return this.pending.promise
    const promise = this.fetch(apiBase, credentials, key, now).finally(() => {
      if (this.pending?.promise === promise) this.pending = undefined
    })
    this.pending = { key, promise }
    return promise
  }

  private async fetch(apiBase: string, credentials: Credentials, key: string, now: number): Promise<string> {
    const secrets = [credentials.clientSecret]
    let result: Awaited<ReturnType<typeof postJson>>
    try {
      result = await postJson(`${apiBase}/v1.0/oauth2/accessToken`, { appKey: credentials.clientId, appSecret: credentials.clientSecret })
    } catch (error) {
      throw new AgentError('E_DELIVERY', `cannot reach DingTalk for an access token: ${redactSecrets(networkReason(error), secrets)}`, { cause: error })
    }
    const token = result.data?.accessToken
    if (result.status >= 300 || typeof token !== 'string' || !token) {
      throw new AgentError('E_DELIVERY', `DingTalk refused an access token (HTTP ${result.status}): ${redactSecrets(describeError(result.data, result.text), secrets)}`)
    }
    const seconds = Number(result.data.expireIn) > 0 ? Number(result.data.expireIn) : 7200
    this.cached = { token, key, expiresAt: now + Math.max(60, seconds - 300) * 1000 }
    return token
  }

  clear(): void {
    this.cached = undefined
  }
}

export type ProactiveTarget = { kind: 'group'; openConversationId: string } | { kind: 'user'; staffId: string }

/** Sends one markdown message as the robot, without a session webhook (needs the access token). */
export async function sendAsRobot(apiBase: string, token: string, robotCode: string, target: ProactiveTarget, message: MarkdownMessage, secrets: string[]): Promise<void> {
  const msgParam = JSON.stringify({ title: message.markdown.title, text: message.markdown.text })
  const [path, body] =
    target.kind === 'group'
      ? ['/v1.0/robot/groupMessages/send', { robotCode, openConversationId: target.openConversationId, msgKey: 'sampleMarkdown', msgParam }]
      : ['/v1.0/robot/oToMessages/batchSend', { robotCode, userIds: [target.staffId], msgKey: 'sampleMarkdown', msgParam }]
  let result: Awaited<ReturnType<typeof postJson>>
  try {
    result = await postJson(`${apiBase}${path}`, body, { 'x-acs-dingtalk-access-token': token })
  } catch (error) {
    throw new DeliveryDeferred(`DingTalk send failed: ${redactSecrets(networkReason(error), [...secrets, token])}`, { cause: error })
  }
  if (result.status >= 300) {
    const reason = `DingTalk send failed (HTTP ${result.status}): ${redactSecrets(describeError(result.data, result.text), [...secrets, token])}`
    if (mayPass(result.status)) throw new DeliveryDeferred(reason)
    throw new AgentError('E_DELIVERY', reason)
  }
  const invalid = result.data?.invalidStaffIdList
  if (Array.isArray(invalid) && invalid.length > 0) throw new AgentError('E_DELIVERY', `DingTalk send failed: unknown staff id ${target.kind === 'user' ? target.staffId : ''}`.trim())
}
