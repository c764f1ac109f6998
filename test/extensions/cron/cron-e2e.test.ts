// End to end against a running `agent gateway run`: a job added with `agent cron add` from another
// process, due within the minute (a time without offset, read in the configured zone), runs with two
// skills loaded (seen in what the scripted model receives) and its answer reaches an SMS number
// through the real SMS adapter, posted to a loopback fake of the provider's REST API. An invalid
// schedule is refused.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent, startAgent, type RunningAgent } from '../../helpers/agent-process.ts'

const ZONE = 'America/New_York'
const TO = '+15551234567'

/** Wall-clock time of an instant in a zone, as a naive ISO string (no offset). */
function naiveIn(zone: string, instant: number): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant))
  const get = (type: string) => parts.find((p) => p.type === type)!.value
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}`
}

async function fakeSmsProvider() {
  const posts: URLSearchParams[] = []
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    posts.push(new URLSearchParams(raw))
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ sid: `SM${posts.length}`, status: 'queued' }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  }
}

describe('cron end to end (gateway, skills, SMS delivery)', () => {
  let home: string
  let model: ScriptedModelServer
  let provider: Awaited<ReturnType<typeof fakeSmsProvider>>
  let gateway: RunningAgent
  let env: Record<string, string>

  before(async () => {
    home = makeTempHome()
    provider = await fakeSmsProvider()
    model = await startScriptedModel({
      respond: (body) => {
        const system = (body.messages ?? []).filter((m: any) => m.role === 'system').map((m: any) => m.content).join('\n')
        return { text: system.includes('ALPHA-RULE') && system.includes('BETA-RULE') ? 'Daily report: both skills applied.' : 'Daily report: skills missing!' }
      },
    })
    for (const [name, rule] of [['alpha', 'ALPHA-RULE'], ['beta', 'BETA-RULE']]) {
      mkdirSync(join(home, 'skills', name!), { recursive: true })
      writeFileSync(join(home, 'skills', name!, 'SKILL.md'), `---\nname: ${name}\ndescription: Test skill ${name}\n---\nAlways follow ${rule}.\n`)
    }
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, cron: { timezone: ZONE, poll_seconds: 1 }, platforms: { sms: { enabled: true } } }))
    env = {
      AGENT_INFERENCE_PROVIDER: 'custom',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'test-key',
      AGENT_MODEL: 'scripted-model',
      WEBHOOK_PORT: '0',
      API_SERVER_PORT: '0',
      TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
      TWILIO_AUTH_TOKEN: 'twilio-auth-token-123',
      TWILIO_PHONE_NUMBER: '+15550001111',
      TWILIO_API_BASE_URL: provider.url,
      SMS_WEBHOOK_URL: 'https://agent.example.test/sms/twilio',
      SMS_ALLOWED_USERS: TO,
    }
    gateway = startAgent(['gateway', 'run'], { home, env, logLevel: 'info' })
    await gateway.waitFor(/gateway running/, 60_000)
    await gateway.waitFor(/cron scheduler started/, 10_000)
  })
  after(async () => {
    await gateway?.stop('SIGINT')
    await model.close()
    await provider.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('refuses an invalid schedule with a clear message (exit 2), storing nothing', async () => {
    for (const schedule of ['every 10 fortnights', '0 25 * * *', '2001-01-01T00:00']) {
      const run = await runAgent(['cron', 'add', schedule, 'report'], { home, env, logLevel: 'error' })
      assert.equal(run.code, 2, `${schedule}: ${run.stderr}`)
      assert.match(run.stderr, /^agent: "[^"]+" (is not a schedule|is not an interval|is not a valid cron expression|is in the past)/)
    }
    assert.deepEqual(jsonOf(await runAgent(['cron', 'list', '--json'], { home, env, logLevel: 'error' })), [])
  })

  it('a job due within the minute runs with two skills and its answer reaches the SMS number', async () => {
    const due = naiveIn(ZONE, Date.now() + 6_000)
    const add = await runAgent(['cron', 'add', due, 'Write the daily report', '-s', 'alpha', '-s', 'beta', '--deliver', `sms:${TO}`, '--name', 'daily', '--json'], { home, env, logLevel: 'error' })
    assert.equal(add.code, 0, add.stderr)
    const job = jsonOf(add)
    assert.equal(job.next_run_local, due.replace('T', ' '))
    assert.deepEqual(job.skills, ['alpha', 'beta'])

    const deadline = Date.now() + 45_000
    while (provider.posts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    assert.equal(provider.posts.length, 1, `nothing delivered; gateway log:\n${gateway.stderr()}`)
    assert.equal(provider.posts[0]!.get('To'), TO)
    assert.equal(provider.posts[0]!.get('Body'), 'Daily report: both skills applied.')
    const chat = model.requests.filter((r) => r.path.endsWith('/chat/completions'))
    assert.equal(chat.length, 1)
    assert.equal(chat[0]!.body.messages.at(-1).content, 'Write the daily report')

    const runs = jsonOf(await runAgent(['cron', 'runs', 'daily', '--json'], { home, env, logLevel: 'error' }))
    assert.equal(runs.length, 1)
    assert.equal(runs[0].status, 'ok')
    assert.equal(runs[0].trigger, 'schedule')
    assert.ok(Date.parse(runs[0].started_at) >= Date.parse(job.next_run_at), `${runs[0].started_at} before ${job.next_run_at}`)
    assert.deepEqual(runs[0].delivery, [{ target: `sms:${TO}`, ok: true, description: 'sms:+155****4567' }])
    const list = jsonOf(await runAgent(['cron', 'list', '--json'], { home, env, logLevel: 'error' }))
    assert.equal(list[0].state, 'done')
    assert.equal(list[0].last_status, 'ok')
    assert.equal(list[0].next_run_at, null)
  })
})
