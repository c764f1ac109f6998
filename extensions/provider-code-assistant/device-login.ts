// The OAuth device-code login (RFC 8628) for the code assistant: ask for a device code, show the
// user the URL and code, poll until they approve (honouring slow_down), and store the token in
// .env (mode 0600) as COPILOT_GITHUB_TOKEN. Bounded by the code's lifetime and the caller's signal.

import { AgentError, AnswerTooLargeError, errorMessage, limitResponse, linkAbortWithTimeout, type Settings } from 'agent/sdk'

export const CLIENT_ID = 'Ov23li8tweQw6odWQebz'
/** A device-code or token answer is a few hundred bytes: more than this is not one (and is not read further). */
const OAUTH_ANSWER_BYTES = 1024 * 1024

export interface DeviceLoginOptions {
  /** e.g. https://github.com */
  oauthBaseUrl: string
  settings: Settings
  signal: AbortSignal
  say(text: string): void
  /** Upper bound of the whole flow (default 15 minutes). */
  maxWaitMs?: number
}

async function post(url: string, form: Record<string, string>, signal: AbortSignal): Promise<any> {
  const deadline = linkAbortWithTimeout(20_000, signal)
  try {
    const res = limitResponse(
      await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'agent-cli' },
        body: new URLSearchParams(form).toString(),
        signal: deadline.signal,
      }),
      OAUTH_ANSWER_BYTES,
    )
    const body: any = await res.json().catch((error: unknown) => {
      if (error instanceof AnswerTooLargeError) throw error
      return {}
    })
    if (!res.ok && !body?.error) throw new Error(`HTTP ${res.status} from ${url}`)
    return body
  } finally {
    deadline.dispose()
  }
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(new AgentError('E_INTERRUPTED', 'login cancelled'))), { once: true })
  })

/** Runs the flow; resolves with the token (already saved). */
export async function deviceLogin(options: DeviceLoginOptions): Promise<string> {
  const base = options.oauthBaseUrl.replace(/\/+$/, '')
  let device: any
  try {
    device = await post(`${base}/login/device/code`, { client_id: CLIENT_ID, scope: 'read:user' }, options.signal)
  } catch (error) {
    throw new AgentError('E_PROVIDER', `copilot login: cannot start the device flow at ${base}: ${errorMessage(error)}`, { cause: error })
  }
  if (!device?.device_code || !device?.user_code) throw new AgentError('E_PROVIDER', `copilot login: ${base} returned no device code${device?.error ? ` (${device.error})` : ''}`)
  options.say(`Open ${device.verification_uri ?? `${base}/login/device`} and enter the code ${device.user_code}`)
  let intervalMs = (Number.isFinite(Number(device.interval)) ? Number(device.interval) : 5) * 1000
  const deadline = Date.now() + Math.min((Number(device.expires_in) || 900) * 1000, options.maxWaitMs ?? 900_000)
  while (Date.now() < deadline) {
    await wait(intervalMs, options.signal)
    let answer: any
    try {
      answer = await post(`${base}/login/oauth/access_token`, { client_id: CLIENT_ID, device_code: device.device_code, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' }, options.signal)
    } catch (error) {
      if (options.signal.aborted) throw new AgentError('E_INTERRUPTED', 'login cancelled')
      continue // a transient network failure: the next poll tries again
    }
    if (typeof answer?.access_token === 'string' && answer.access_token) {
      await options.settings.setEnv('COPILOT_GITHUB_TOKEN', answer.access_token)
      return answer.access_token
    }
    switch (answer?.error) {
      case 'authorization_pending':
        continue
      case 'slow_down':
        intervalMs = Number(answer.interval) > 0 ? Number(answer.interval) * 1000 : intervalMs + 5000
        continue
      case 'expired_token':
        throw new AgentError('E_PROVIDER', 'copilot login: the device code expired; run `agent login copilot` again')
      case 'access_denied':
        throw new AgentError('E_PROVIDER', 'copilot login: authorization was denied')
      default:
        throw new AgentError('E_PROVIDER', `copilot login: ${answer?.error_description ?? answer?.error ?? 'unexpected answer'}`)
    }
  }
  throw new AgentError('E_TIMEOUT', 'copilot login: timed out waiting for authorization; run `agent login copilot` again')
}
