// `agent sessions list|rename|search|show` through the real bin over a store seeded in process, on
// each backend (the home's config.yaml names it for both).

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { SESSIONS_SERVICE, type SessionStore } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'

for (const backend of STORAGE_BACKENDS) test(`sessions list, rename, search and show [${backend}]`, { skip: backendSkip(backend) }, async (t) => {
  const storage = await testStorage(t, backend)
  const home = tempDir(t, 'agent-home-')
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'], home, config: storage.config })
  const store = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const a = await store.create({ title: 'Kitchen plans', source: 'cli', model: 'm1' })
  await store.append(a.id, [{ role: 'user', content: 'Where should the new oven go?' }, { role: 'assistant', content: 'Next to the window.' }], { usage: { inputTokens: 7, outputTokens: 3 }, apiCalls: 1 })
  await new Promise((r) => setTimeout(r, 5))
  const b = await store.create({ source: 'telegram', userId: '42' })
  await store.append(b.id, [{ role: 'user', content: 'Remind me about the oven delivery' }])
  await tk.close()
  const agent = (args: string[]) => runAgent(args, { home, timeoutMs: 30_000 })

  const listed = await agent(['sessions', 'list', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  const rows = JSON.parse(listed.stdout)
  assert.deepEqual(rows.map((r: any) => r.id), [b.id, a.id])
  assert.deepEqual(rows[1].usage, { input_tokens: 7, output_tokens: 3, reasoning_tokens: 0, total_tokens: 10, cost_usd: 0 })
  assert.equal(rows[1].title, 'Kitchen plans')
  assert.equal(rows[0].user_id, '42')
  assert.match(rows[0].started_at, /^\d{4}-\d\d-\d\dT/)
  const text = await agent(['sessions', 'list', '--source', 'cli'])
  assert.equal(text.stdout.trim().split('\n').length, 1)
  assert.match(text.stdout, /"Kitchen plans"/)
  assert.equal((await agent(['sessions', 'list', '--limit', '0'])).code, 2)

  const renamed = await agent(['sessions', 'rename', 'Kitchen plans', 'Kitchen remodel'])
  assert.equal(renamed.code, 0, renamed.stderr)
  assert.match(renamed.stdout, /is now "Kitchen remodel"/)
  const taken = await agent(['sessions', 'rename', b.id, 'Kitchen remodel'])
  assert.equal(taken.code, 2)
  assert.match(taken.stderr, /^agent: the title "Kitchen remodel" is already used by session /)
  const missing = await agent(['sessions', 'rename', 'nobody', 'x'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /no session with id or title "nobody"/)

  const search = await agent(['sessions', 'search', 'oven', '--json'])
  assert.equal(search.code, 0, search.stderr)
  const hits = JSON.parse(search.stdout)
  assert.equal(hits.length, 2)
  assert.ok(hits.every((h: any) => h.snippet.includes('[oven]')))
  const filtered = await agent(['sessions', 'search', 'oven', 'delivery'])
  assert.equal(filtered.stdout.trim().split('\n').length, 1)
  assert.match(filtered.stdout, new RegExp(`^${b.id}`))
  const raw = await agent(['sessions', 'search', '"oven', '--raw'])
  if (backend === 'sqlite') {
    assert.equal(raw.code, 2, 'FTS5 syntax: an unbalanced quote is a usage error')
    assert.match(raw.stderr, /invalid search query/)
  } else {
    assert.equal(raw.code, 0, 'web search syntax: an unbalanced quote is taken as it comes')
    assert.equal(raw.stdout.trim().split('\n').length, 2)
  }

  const shown = await agent(['sessions', 'show', 'Kitchen remodel', '--json'])
  assert.equal(shown.code, 0, shown.stderr)
  const doc = JSON.parse(shown.stdout)
  assert.equal(doc.id, a.id)
  assert.deepEqual(doc.messages.map((m: any) => m.content), ['Where should the new oven go?', 'Next to the window.'])
})

// A secret that became known after it was stored (appended to .env after the messages were written,
// as the agent's own terminal might): printed by no command, a snippet marking a match inside it
// included; the text around it, and a look-alike that is no secret, print as stored.
const SECRET = 'dpl-7f3k9QxW2mZ8rT5vLq'
const PLAIN = 'dpl-0000aaaa1111bbbb22'
const fragments = (text: string) => Array.from({ length: text.length - 7 }, (_, i) => text.slice(i, i + 8))

for (const backend of STORAGE_BACKENDS) test(`sessions show, search and list redact a secret known only since it was stored [${backend}]`, { skip: backendSkip(backend) }, async (t) => {
  const storage = await testStorage(t, backend)
  const home = tempDir(t, 'agent-home-')
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'], home, config: storage.config })
  const store = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const s = await store.create({ title: `deploy ${SECRET}`, source: 'cli' })
  await store.append(s.id, [
    { role: 'user', content: `the deploy token is ${SECRET} keep it safe` },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'terminal', arguments: JSON.stringify({ command: `echo DEPLOY_TOKEN=${SECRET} >> .env` }) }] },
    { role: 'tool', toolCallId: 'c1', name: 'terminal', content: 'ok' },
    { role: 'user', content: `and ${PLAIN} is only a sample` },
  ])
  await tk.close()
  writeFileSync(join(home, '.env'), `DEPLOY_TOKEN=${SECRET}\n`, { mode: 0o600 })
  const agent = async (args: string[]) => {
    const run = await runAgent(args, { home, timeoutMs: 30_000 })
    assert.equal(run.code, 0, run.stderr)
    for (const piece of fragments(SECRET)) assert.ok(!run.stdout.includes(piece), `agent ${args.join(' ')} printed ${piece}:\n${run.stdout}`)
    return run.stdout
  }
  const shown = await agent(['sessions', 'show', s.id])
  assert.match(shown, /the deploy token is \[REDACTED:DEPLOY_TOKEN\] keep it safe/)
  assert.match(shown, /"deploy \[REDACTED:DEPLOY_TOKEN\]"/)
  assert.ok(shown.includes(`and ${PLAIN} is only a sample`))
  const doc = JSON.parse(await agent(['sessions', 'show', s.id, '--json']))
  assert.equal(doc.messages[3].content, `and ${PLAIN} is only a sample`)
  assert.match(doc.messages[1].tool_calls[0].arguments, /\[REDACTED:DEPLOY_TOKEN\]/)
  // `dpl` matches a word inside the secret: the backend's snippet would read `[dpl]-7f3k…`.
  const hits = JSON.parse(await agent(['sessions', 'search', 'dpl', '--json']))
  assert.equal(hits.length, 2)
  const snippets = hits.map((h: any) => h.snippet).sort()
  assert.ok(snippets.some((x: string) => x.includes('[REDACTED:DEPLOY_TOKEN]')), snippets.join('\n'))
  assert.ok(snippets.some((x: string) => x.includes('[dpl]-0000aaaa1111bbbb22')), snippets.join('\n'))
  assert.ok(hits.every((h: any) => h.title === 'deploy [REDACTED:DEPLOY_TOKEN]'))
  await agent(['sessions', 'search', SECRET.slice(4)])
  await agent(['sessions', 'search', 'deploy', 'token'])
  assert.match(await agent(['sessions', 'list']), /"deploy \[REDACTED:DEPLOY_TOKEN\]"/)
})
