// `agent cron …` with the real CLI: add/list/pause/resume/remove by id or name, `run` now in the
// foreground (with skills, through the real runtime and a scripted model) and `runs`.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'

describe('agent cron (CLI)', () => {
  let home: string
  let model: ScriptedModelServer
  const agent = (...args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error' })

  before(async () => {
    home = makeTempHome()
    model = await startScriptedModel({ respond: (body) => ({ text: (body.messages[0].content as string).includes('GAMMA-RULE') ? 'gamma report' : 'plain report' }) })
    mkdirSync(join(home, 'skills', 'gamma'), { recursive: true })
    writeFileSync(join(home, 'skills', 'gamma', 'SKILL.md'), '---\nname: gamma\ndescription: Test skill\n---\nFollow GAMMA-RULE.\n')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, cron: { timezone: 'Asia/Tokyo' } }))
  })
  after(async () => {
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('adds, lists, pauses, resumes, runs now and removes a job', async () => {
    const add = await agent('cron', 'add', '0 8 * * *', 'Morning summary', '--name', 'morning', '-s', 'gamma', '--deliver', 'log', '--json')
    assert.equal(add.code, 0, add.stderr)
    const job = jsonOf(add)
    assert.equal(job.schedule_display, 'cron 0 8 * * * (Asia/Tokyo)')
    assert.match(job.next_run_local, / 08:00:00$/)

    const text = await agent('cron', 'list')
    assert.match(text.stdout, /morning\s+scheduled\s+\S+ 08:00:00\s+cron 0 8 \* \* \* \(Asia\/Tokyo\)\s+gamma\s+log/)

    assert.equal((await agent('cron', 'pause', 'morning')).code, 0)
    assert.equal(jsonOf(await agent('cron', 'list', '--json'))[0].state, 'paused')
    assert.equal((await agent('cron', 'resume', job.id)).code, 0)
    assert.equal(jsonOf(await agent('cron', 'list', '--json'))[0].state, 'scheduled')

    const run = await agent('cron', 'run', 'morning', '--json')
    assert.equal(run.code, 0, run.stderr)
    const outcome = jsonOf(run)
    assert.equal(outcome.status, 'ok')
    assert.equal(outcome.answer, 'gamma report')
    assert.match(outcome.session_id, /\S/, 'snake_case like every --json')
    assert.deepEqual(outcome.deliveries, [{ target: 'log', ok: true, description: 'log' }])
    const runs = jsonOf(await agent('cron', 'runs', 'morning', '--json'))
    assert.deepEqual(runs.map((r: any) => [r.trigger, r.status, r.answer]), [['manual', 'ok', 'gamma report']])
    // A manual run leaves the plan alone.
    assert.equal(jsonOf(await agent('cron', 'list', '--json'))[0].next_run_at, job.next_run_at)

    assert.equal((await agent('cron', 'remove', job.id)).code, 0)
    assert.deepEqual(jsonOf(await agent('cron', 'list', '--json')), [])
  })

  it('refuses unknown jobs, skills and targets with exit 2', async () => {
    for (const args of [
      ['cron', 'run', 'nope'],
      ['cron', 'pause', 'nope'],
      ['cron', 'add', 'every 1h', 'x', '-s', 'gamma', '-s', 'missing'],
      ['cron', 'add', 'every 1h', 'x', '--deliver', 'origin'],
      ['cron', 'add', 'every 1h', '   '],
    ]) {
      const run = await agent(...args)
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`)
      assert.match(run.stderr, /^agent: \S/)
    }
    assert.deepEqual(jsonOf(await agent('cron', 'list', '--json')), [])
  })
})
