// The code assistant's GitHub token: COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN (the one stored by
// `agent login copilot` goes to .env as COPILOT_GITHUB_TOKEN), then the vendor's CLI (`gh auth token`).
// Classic personal access tokens (ghp_) are not accepted by the API and are skipped with a reason.

import { execFile } from 'node:child_process'
import { AgentError, type Settings } from 'agent/sdk'

export const TOKEN_ENV = ['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'] as const
export const LOGIN_HINT = 'run `agent login copilot` (device code), or set COPILOT_GITHUB_TOKEN to an OAuth (gho_) or fine-grained (github_pat_) token'

export const isClassicPat = (token: string) => token.startsWith('ghp_')

export interface ResolvedToken {
  token: string
  source: string
}

/** Asks the vendor CLI for its token; undefined when it is missing, fails or is slow. */
function cliToken(command: string, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, ['auth', 'token'], { timeout: timeoutMs, windowsHide: true }, (error, stdout) => {
      const token = String(stdout ?? '').trim()
      resolve(!error && token ? token : undefined)
    })
  })
}

export async function resolveToken(settings: Settings, ghCommand: string | undefined, explicit?: string): Promise<ResolvedToken> {
  if (explicit) return { token: explicit, source: 'model.api_key' }
  let rejected: string | undefined
  for (const name of TOKEN_ENV) {
    const value = settings.env(name)?.trim()
    if (!value) continue
    if (isClassicPat(value)) {
      rejected ??= name
      continue
    }
    return { token: value, source: name }
  }
  if (ghCommand) {
    const token = await cliToken(ghCommand, 5000)
    if (token && !isClassicPat(token)) return { token, source: `${ghCommand} auth token` }
    if (token) rejected ??= `${ghCommand} auth token`
  }
  if (rejected) throw new AgentError('E_PROVIDER', `copilot: the token from ${rejected} is a classic personal access token (ghp_), which the API does not accept: ${LOGIN_HINT}`)
  throw new AgentError('E_PROVIDER', `copilot: no GitHub token: ${LOGIN_HINT}`)
}

export function tokenPresent(settings: Settings): true | string {
  for (const name of TOKEN_ENV) {
    const value = settings.env(name)?.trim()
    if (value && !isClassicPat(value)) return true
  }
  return `no GitHub token: ${LOGIN_HINT}`
}
