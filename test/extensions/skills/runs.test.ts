// Skills in real runs (the runtime extension, a scripted model): RunRequest.skills puts the skills'
// instructions in the system prompt, an unknown skill is refused before any model call, the model
// can read a skill with skill_view, and /plan runs the bundled planning skill and saves the plan in
// the workspace.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime, type CommandDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, startScriptedModel, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'

describe('skills in runs', () => {
  let t: TestKernel
  let model: ScriptedModelServer
  let workspace: string
  const chats = () => model.requests.filter((r) => r.path.endsWith('/chat/completions'))
  const system = (index: number) => (chats()[index]!.body.messages as any[]).filter((m) => m.role === 'system').map((m) => m.content).join('\n')

  before(async () => {
    model = await startScriptedModel()
    const home = makeTempHome()
    workspace = makeTempHome('plan-workspace-')
    mkdirSync(join(home, 'skills', 'release'), { recursive: true })
    writeFileSync(join(home, 'skills', 'release', 'SKILL.md'), '---\nname: release\ndescription: How we cut a release\n---\nTag with vX.Y.Z and write RELEASE-NOTES-RULE.\n')
    mkdirSync(join(home, 'skills', 'release', 'references'))
    writeFileSync(join(home, 'skills', 'release', 'references', 'checklist.md'), '1. bump version\n2. tag\n')
    t = await createTestKernel({
      home,
      builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'skills'],
      config: { terminal: { cwd: workspace } },
      env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
    })
    for (const info of t.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
  })
  after(async () => {
    await t.close()
    await model.close()
    for (const dir of [t.home, workspace]) rmSync(dir, { recursive: true, force: true })
  })

  it('loads the named skills into the system prompt of the run', async () => {
    model.enqueue({ text: 'ok' })
    const runtime = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
    await runtime.run({ input: 'cut a release', skills: ['release', 'plan'] })
    const prompt = system(chats().length - 1)
    assert.match(prompt, /<skill name="release">[\s\S]*RELEASE-NOTES-RULE/)
    assert.match(prompt, /<skill name="plan">[\s\S]*You are writing a plan/)
  })

  it('refuses an unknown skill before calling the model', async () => {
    const before = chats().length
    const runtime = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
    await assert.rejects(async () => runtime.run({ input: 'x', skills: ['nope'] }), /unknown skill: nope/)
    assert.equal(chats().length, before)
  })

  it('the model reads a skill and one of its files with skill_view', async () => {
    model.enqueue({ toolCalls: [{ name: 'skill_view', arguments: { name: 'release', file: 'references/checklist.md' } }] }, { text: 'done' })
    const runtime = t.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE)
    const result = await runtime.run({ input: 'what is on the checklist?' })
    assert.equal(result.answer, 'done')
    const tool = (chats().at(-1)!.body.messages as any[]).find((m) => m.role === 'tool')
    assert.match(tool.content, /1\. bump version/)
    // The catalog tells the model which skills exist.
    assert.match(system(chats().length - 2), /- release: How we cut a release/)
  })

  it('/plan runs the planning skill and saves the plan in the workspace', async () => {
    model.enqueue({ text: '# Plan: add caching\n\n1. Measure\n2. Cache\n3. Verify' })
    const replies: string[] = []
    const plan = t.kernel.registries.commands.get('plan') as CommandDefinition
    await plan.slash!({ args: 'Add caching to the API client', invokedAs: 'plan', surface: 'cli', reply: (text) => void replies.push(text) })
    assert.match(system(chats().length - 1), /<skill name="plan">/)
    assert.equal(chats().at(-1)!.body.messages.at(-1).content, 'Add caching to the API client')
    const dir = join(workspace, '.agent', 'plans')
    const files = readdirSync(dir)
    assert.equal(files.length, 1)
    assert.match(files[0]!, /^\d{8}-\d{6}-add-caching-to-the-api-client\.md$/)
    assert.equal(readFileSync(join(dir, files[0]!), 'utf8'), '# Plan: add caching\n\n1. Measure\n2. Cache\n3. Verify\n')
    assert.match(replies.join('\n'), new RegExp(`Plan saved to ${join(dir, files[0]!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
    const usage: string[] = []
    await plan.slash!({ args: '', invokedAs: 'plan', surface: 'cli', reply: (text) => void usage.push(text) })
    assert.deepEqual(usage, ['Usage: /plan <what you want done>'])
    assert.equal(existsSync(dir) && readdirSync(dir).length, 1)
  })
})
