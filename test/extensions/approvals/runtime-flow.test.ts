// The approval flow end to end in-process: the real gateway (dispatch, per-chat queue, slash
// routing), delivery, runtime, model resolver and OpenAI-compatible provider against a scripted model,
// the terminal tool and approvals. A chat message makes the model run a dangerous command; the
// approval request arrives in the same chat, and /approve or /deny typed there decides.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { createTestKernel, fakeAdapter, startScriptedModel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

const BUILTINS = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-terminal', 'approvals', 'checkpoints', 'slash-commands']

async function chatFixture(t: import('node:test').TestContext, approvals: Record<string, unknown> = {}) {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const work = tempDir(t, 'agent-appr-e2e-')
  mkdirSync(join(work, 'build'))
  const fake = fakeAdapter({ name: 'fake' })
  const k = await createTestKernel({
    builtins: BUILTINS,
    extensions: [fake.definition],
    config: { approvals, terminal: { cwd: work } },
    env: { FAKE_ALLOWED_USERS: 'alice', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test-e2e' },
  })
  t.after(() => k.close())
  for (const info of k.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
  const waitFor = async (pattern: RegExp) => {
    for (let i = 0; i < 400; i++) {
      const hit = fake.sent.find((m) => pattern.test(m.text))
      if (hit) return hit
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`no message matching ${pattern}; sent: ${JSON.stringify(fake.sent)}`)
  }
  const alice = { userId: 'alice', chatId: 'chat-a' }
  return { model, work, fake, k, waitFor, alice }
}

const toolResults = (model: { requests: Array<{ path: string; body: any }> }) =>
  model.requests.filter((r) => r.path.endsWith('/chat/completions')).flatMap((r) => (r.body.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => m.content as string))

test('gateway chat: the dangerous command waits for /approve, then runs and the turn finishes', async (t) => {
  const { model, work, fake, waitFor, alice } = await chatFixture(t)
  model.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build' } }] }, { text: 'Build directory removed.' })
  const turn = await fake.inbound(alice, 'please remove the build directory')
  assert.equal(turn.status, 'queued')
  const request = await waitFor(/Approval needed: recursive delete/)
  assert.equal(request.chatId, 'chat-a')
  assert.ok(existsSync(join(work, 'build')))
  const approve = await fake.inbound(alice, '/approve')
  assert.equal(approve.status, 'command')
  await approve.done
  await turn.done
  await waitFor(/Build directory removed\./)
  assert.ok(!existsSync(join(work, 'build')))
  assert.match(toolResults(model)[0]!, /"exit_code": 0/)
})

test('gateway chat: /deny stops the command and the model is told why', async (t) => {
  const { model, work, fake, waitFor, alice } = await chatFixture(t)
  model.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build' } }] }, { text: 'Understood, I left it.' })
  const turn = await fake.inbound(alice, 'remove build')
  await waitFor(/Approval needed/)
  await (await fake.inbound(alice, '/deny keep it')).done
  await turn.done
  await waitFor(/Understood, I left it\./)
  assert.ok(existsSync(join(work, 'build')))
  assert.match(toolResults(model)[0]!, /did not approve.*keep it/)
})

test('gateway chat, smart mode: an ambiguous judge verdict escalates to /approve', async (t) => {
  const { model, work, fake, waitFor, alice } = await chatFixture(t, { mode: 'smart' })
  model.enqueue(
    { toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build' } }] },
    { text: 'It might be fine, hard to say.' }, // the judge (auxiliary task `approval` on the main model)
    { text: 'Done after approval.' },
  )
  const turn = await fake.inbound(alice, 'clean up')
  await waitFor(/Approval needed/)
  const judge = model.requests.filter((r) => r.path.endsWith('/chat/completions'))[1]!.body
  assert.match(judge.messages[0].content, /APPROVE.*DENY.*ESCALATE/s)
  assert.ok(existsSync(join(work, 'build')))
  await (await fake.inbound(alice, '/approve')).done
  await turn.done
  await waitFor(/Done after approval\./)
  assert.ok(!existsSync(join(work, 'build')))
})

test('gateway chat: /new stops the run, which releases its pending approval at once (denied) instead of leaving it to time out', async (t) => {
  const { model, work, fake, k, waitFor, alice } = await chatFixture(t, { timeout: 600 })
  model.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'rm -rf build' } }] }, { text: 'Left it alone.' })
  const turn = await fake.inbound(alice, 'remove build')
  await waitFor(/Approval needed/)
  const approvals = k.kernel.services.require<{ pending(): unknown[] }>('approvals')
  assert.equal(approvals.pending().length, 1)
  const reset = await fake.inbound(alice, '/new')
  assert.equal(reset.status, 'command')
  await reset.done
  await turn.done
  assert.equal(approvals.pending().length, 0)
  assert.ok(existsSync(join(work, 'build')), 'the denied command did not run')
})
