// Posting to a running gateway's webhook listener, and what its model was asked since: shared by the
// webhook end-to-end tests.

import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { eventually, type Gateway } from '../gateway/harness.ts'

export function webhookClient(gw: Gateway) {
  const post = async (route: string, body: string, headers: Record<string, string> = {}) => {
    // Bounded, and a hang reports what the gateway logged rather than the file's bare timeout.
    const res = await fetch(`${gw.url}/webhooks/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(30_000) }).catch((error: Error) => {
      throw new Error(`POST /webhooks/${route} failed: ${error.message}\nstderr: ${gw.agent.stderr()}`)
    })
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any }
  }
  const calls = () => gw.model.requests.filter((r) => r.path.endsWith('/chat/completions')).length
  /** Waits a moment and checks that no model call happened since `before`. */
  const ranNothing = async (before: number) => {
    await sleep(300)
    assert.equal(calls(), before, 'no agent run')
  }
  /** Waits until the model got a prompt containing `text`. */
  const ran = async (text: string) =>
    assert.ok(await eventually(() => gw.prompts().some((p) => p.includes(text))), `a run with "${text}"; prompts: ${JSON.stringify(gw.prompts())}\nstderr: ${gw.agent.stderr()}`)
  return { post, calls, ranNothing, ran }
}
