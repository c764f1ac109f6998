// Outbound SMS through the provider's REST API: POST {base}/2010-04-01/Accounts/{sid}/Messages.json,
// form fields From, To, Body, HTTP Basic authentication (account id and auth token). The base URL is
// TWILIO_API_BASE_URL (default the public API), so tests point it at a loopback fake. A network
// failure, 429 or 5xx is deferred (the gateway's outbox retries it); other refusals are final.

import { AgentError, DeliveryDeferred, redactPhonesIn, redactSecrets } from 'agent/sdk'

export const DEFAULT_API_BASE = 'https://api.twilio.com'

export interface SmsAccount {
  accountSid: string
  authToken: string
  from: string
  baseUrl: string
}

export async function sendSms(account: SmsAccount, to: string, body: string, timeoutMs = 30_000): Promise<string | undefined> {
  const url = `${account.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(account.accountSid)}/Messages.json`
  const clean = (text: string) => redactPhonesIn(redactSecrets(text, [account.authToken, account.accountSid]))
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ From: account.from, To: to, Body: body }).toString(),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    throw new DeliveryDeferred(`SMS send failed: ${clean((error as Error).message)}`, { cause: error })
  }
  const text = await response.text().catch(() => '')
  let parsed: { sid?: string; message?: string } = {}
  try {
    parsed = JSON.parse(text) as typeof parsed
  } catch {}
  if (!response.ok) {
    const reason = `SMS provider ${response.status}: ${clean(parsed.message ?? text.slice(0, 200))}`
    if (response.status === 429 || response.status >= 500) throw new DeliveryDeferred(reason, { ...(response.status === 429 ? { code: 'E_RATE_LIMITED' as const } : {}) })
    throw new AgentError('E_DELIVERY', reason)
  }
  return parsed.sid
}
