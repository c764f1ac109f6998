// Comments on a code-hosting issue or pull request through the host's REST API
// (POST {base}/repos/{owner}/{repo}/issues/{number}/comments). The base URL is configurable so tests
// and self-hosted instances point it elsewhere; the token comes from GITHUB_TOKEN.

import { AgentError, redactSecrets } from 'agent/sdk'

export const REPO_PATTERN = /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/

export interface CommentRequest {
  baseUrl: string
  token: string | undefined
  repo: string
  number: number
  body: string
  timeoutMs?: number
  secrets: string[]
}

export async function postComment(request: CommentRequest): Promise<void> {
  if (!REPO_PATTERN.test(request.repo)) throw new AgentError('E_USAGE', `invalid repository "${request.repo}" (expected owner/name)`)
  if (!Number.isInteger(request.number) || request.number < 1) throw new AgentError('E_USAGE', `invalid issue or pull request number "${request.number}"`)
  if (!request.token) throw new AgentError('E_CONFIG', 'code-host comments need GITHUB_TOKEN')
  const url = `${request.baseUrl.replace(/\/+$/, '')}/repos/${request.repo}/issues/${request.number}/comments`
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${request.token}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json',
        'user-agent': 'agent-gateway',
        'x-github-api-version': '2022-11-28',
      },
      body: JSON.stringify({ body: request.body }),
      signal: AbortSignal.timeout(request.timeoutMs ?? 30_000),
    })
  } catch (error) {
    throw new AgentError('E_DELIVERY', `comment on ${request.repo}#${request.number} failed: ${redactSecrets((error as Error).message, request.secrets)}`, { cause: error })
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '')
    let message = text.slice(0, 200)
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message
    } catch {}
    throw new AgentError('E_DELIVERY', `comment on ${request.repo}#${request.number} failed: HTTP ${response.status} ${redactSecrets(message, request.secrets)}`)
  }
}
