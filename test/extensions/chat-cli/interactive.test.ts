// The interactive chat in a real terminal (tmux) against the scripted model, through the real
// runtime, sessions and model resolver: streaming, slash commands, background runs, usage, the
// status bar at 60 and 160 columns, Ctrl-C.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { hasTmux, openTerminal, type Terminal } from '../../helpers/tmux.ts'

const ANSWER_TAIL = 'and that is the end of the streamed answer.'
const ECHOED_SECRET = 'tg-bot-token-4f5e6d7c8b9a0f1e'

describe('interactive chat in a terminal', { skip: hasTmux() ? false : 'tmux is not installed (apt-get install tmux)' }, () => {
  let model: ScriptedModelServer
  const homes: string[] = []
  const terminals: Terminal[] = []

  before(async () => {
    model = await startScriptedModel({
      models: ['scripted-model', 'foo'],
      respond: (body) => {
        const last = [...body.messages].reverse().find((m: any) => m.role === 'user')?.content ?? ''
        // A provider that echoes a credential in its error (the slash-command error line must not show it).
        if (String(last).includes('echo a key')) return { status: 401, error: `bad key; also seen: ${ECHOED_SECRET}` }
        // Slow enough to watch it arrive: ~40 chunks, 40 ms apart.
        return { text: `Reply to ${last}: ${'word '.repeat(40)}${ANSWER_TAIL}`, chunkSize: 6, chunkDelayMs: 40, usage: { prompt_tokens: 2000, completion_tokens: 100 } }
      },
    })
  })
  after(async () => {
    for (const t of terminals) t.close()
    await model.close()
    for (const home of homes) rmSync(home, { recursive: true, force: true })
  })

  function home(extra: Record<string, unknown> = {}): string {
    const dir = makeTempHome('agent-tui-')
    homes.push(dir)
    const config = { _config_version: 10, model: { context_length: 32768 }, pricing: { 'scripted-model': { input: 3, output: 15 }, foo: { input: 1, output: 2 } }, ...extra }
    writeFileSync(join(dir, 'config.yaml'), YAML.stringify(config))
    return dir
  }

  function open(dir: string, columns = 120, rows = 32, args: string[] = [], cwd?: string): Terminal {
    const t = openTerminal({ home: dir, columns, rows, args, cwd, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
    terminals.push(t)
    return t
  }

  const statusLine = (screen: string) => screen.split('\n').filter((l) => l.trim()).pop() ?? ''
  /** The screen without whitespace: text wrapped at the terminal width still matches. */
  const flat = (text: string) => text.replace(/\s+/g, '')
  const shows = (text: string) => (screen: string) => flat(screen).includes(flat(text))
  /** The whole scripted answer to a prompt is on screen. */
  const answered = (prompt: string) => (screen: string) => shows(`Reply to ${prompt}: ${'word '.repeat(40)}${ANSWER_TAIL}`)(screen) && !/running/.test(statusLine(screen))
  const ready = (t: Terminal) => t.waitFor((s) => /custom:scripted-model/.test(statusLine(s)), 20_000, 'the status bar with the served model')

  test('a turn streams into the terminal and the status bar counts it', async () => {
    const t = open(home())
    await ready(t)
    t.type('hello agent')
    t.send('Enter')
    // Part of the answer is on screen before its end arrives: it streams.
    const partial = await t.waitFor((s) => shows('Reply to hello agent')(s) && !shows(ANSWER_TAIL)(s), 10_000, 'a partial answer')
    assert.match(partial, /running/)
    await t.waitFor((s) => shows(ANSWER_TAIL)(s), 10_000, 'the whole answer')
    const screen = await t.waitFor((s) => /ctx 2\.1k\/33k 6%/.test(statusLine(s)), 5_000, 'context usage after the turn')
    assert.match(statusLine(screen), /custom:scripted-model/)
    assert.match(statusLine(screen), /\$0\.0075/)
    const call = model.requests.find((r) => r.path.endsWith('/chat/completions') && JSON.stringify(r.body.messages).includes('hello agent'))
    assert.equal(call?.body.stream, true)
  })

  test('/model custom:foo is session-only, an invalid model changes nothing, /reasoning high saves', async () => {
    const dir = home()
    const t = open(dir)
    await ready(t)
    t.type('/model custom:nosuch')
    t.send('Enter')
    await t.waitFor(shows('Model not changed: unknown model "nosuch"'), 10_000, 'the rejection')
    await t.waitFor(shows('Use /model to see the current model and /provider to list providers.'), 10_000, 'the hint')
    t.type('/model custom:foo')
    t.send('Enter')
    await t.waitFor(shows('Model switched to custom:foo for this session only; it reverts on restart'), 10_000, 'the session-only notice')
    assert.equal(YAML.parse(readFileSync(join(dir, 'config.yaml'), 'utf8')).model.default, undefined)
    t.type('/reasoning high')
    t.send('Enter')
    await t.waitFor(shows('Reasoning effort set to high and saved to config'), 10_000, 'the saved notice')
    assert.equal(YAML.parse(readFileSync(join(dir, 'config.yaml'), 'utf8')).agent.reasoning_effort, 'high')
    t.type('which model?')
    t.send('Enter')
    await t.waitFor(answered('which model?'), 15_000, 'the answer')
    const call = [...model.requests].reverse().find((r) => JSON.stringify(r.body?.messages ?? '').includes('which model?'))
    assert.equal(call?.body.model, 'foo')
    assert.equal(call?.body.reasoning_effort, 'high')
    assert.match(statusLine(t.capture()), /custom:foo\*/)
  })

  test('/background returns its result; /usage shows cost breakdown and duration', async () => {
    const t = open(home())
    await ready(t)
    t.type('/background summarise the weather')
    t.send('Enter')
    await t.waitFor(/Background task bg1 started/, 10_000, 'the start notice')
    const done = await t.waitFor((s) => shows('background bg1 done')(s) && shows(ANSWER_TAIL)(s), 15_000, 'the background result')
    assert.ok(shows('Reply to summarise the weather')(done))
    t.type('hi')
    t.send('Enter')
    await t.waitFor(answered('hi'), 15_000, 'the answer')
    t.type('/usage')
    t.send('Enter')
    const usage = await t.waitFor(/duration:\s+\d+s/, 10_000, 'the usage report')
    assert.match(usage, /cost:\s+\$0\.0075 \(input \$0\.0060 \+ output \$0\.0015\)/)
    assert.match(usage, /input tokens:\s+2\.0k/)
    assert.match(usage, /context:\s+2\.1k \/ 33k \(6%\)/)
  })

  test('the status bar fits 60 and 160 columns', async () => {
    for (const columns of [60, 160]) {
      const t = open(home(), columns, 24)
      const screen = await ready(t)
      const bar = statusLine(screen)
      assert.ok(bar.length <= columns - 1, `bar of ${bar.length} characters at ${columns} columns: ${bar}`)
      assert.match(bar, /custom:scripted-model/)
      if (columns === 160) assert.match(bar, /ctx 0\/33k 0% │ \d+s/)
      t.type('hello')
      t.send('Enter')
      const busy = await t.waitFor(/●/, 10_000, 'the running marker')
      assert.ok(statusLine(busy).length <= columns - 1)
      await t.waitFor((s) => shows(ANSWER_TAIL)(s), 15_000, 'the answer')
      const after = await t.waitFor((s) => /\$0\.0075/.test(statusLine(s)), 5_000, 'the cost')
      assert.ok(statusLine(after).length <= columns - 1, statusLine(after))
      t.close()
    }
  })

  test('Ctrl-C interrupts the turn, a second Ctrl-C leaves and names the session', async () => {
    model.enqueue({ text: 'slow '.repeat(200), chunkSize: 5, chunkDelayMs: 50 })
    const t = open(home())
    await ready(t)
    t.type('tell me a long story')
    t.send('Enter')
    await t.waitFor(/slow slow slow/, 10_000, 'the story starting')
    t.send('C-c')
    await t.waitFor(/⏹ interrupted/, 10_000, 'the interrupt')
    assert.doesNotMatch(t.capture(), /\[agent exited/)
    t.send('C-c')
    const end = await t.waitFor(/\[agent exited 0\]/, 10_000, 'the exit')
    assert.match(flat(end), /session\S+saved;continueitwith:agent--resume\S+/)
  })

  async function leave(t: Terminal): Promise<string> {
    t.send('C-c')
    await t.waitFor(/Ctrl-C again to exit/, 5_000, 'the exit hint')
    t.send('C-c')
    return t.waitFor(/\[agent exited 0\]/, 10_000, 'the exit')
  }

  test('-c continues the latest session, --resume finds one by title, an unknown one says so', async () => {
    const dir = home()
    const first = open(dir)
    await ready(first)
    first.type('remember the word tangerine')
    first.send('Enter')
    await first.waitFor(answered('remember the word tangerine'), 15_000, 'the answer')
    first.type('/title fruit talk')
    first.send('Enter')
    await first.waitFor(shows('Session titled "fruit talk".'), 10_000, 'the title')
    await leave(first)

    const again = open(dir, 120, 32, ['-c'])
    await again.waitFor(shows('resumed "fruit talk"'), 20_000, 'the resume line')
    assert.ok(shows('› remember the word tangerine')(again.capture()), 'the recap shows the earlier turn')
    again.type('and now?')
    again.send('Enter')
    await again.waitFor(answered('and now?'), 15_000, 'the answer')
    const call = [...model.requests].reverse().find((r) => JSON.stringify(r.body?.messages ?? '').includes('and now?'))
    assert.ok(JSON.stringify(call?.body.messages).includes('remember the word tangerine'), 'the model saw the earlier turn')
    await leave(again)

    const byTitle = open(dir, 120, 32, ['--resume', 'fruit talk'])
    await byTitle.waitFor(shows('resumed "fruit talk"'), 20_000, 'the resume by title')
    await leave(byTitle)
    const unknown = open(dir, 120, 32, ['--resume', 'vegetables'])
    await unknown.waitFor(shows('no session matches "vegetables"; starting a new one'), 20_000, 'the notice')
  })

  test('-w runs in a new git worktree: untouched it is removed, changed it is kept', async () => {
    const dir = home()
    // The project lives outside the agent's home: every write under the home needs approval.
    const repo = join(makeTempHome('agent-repo-'), 'repo')
    homes.push(dirname(repo))
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim()
    execFileSync('git', ['init', '--quiet', repo])
    writeFileSync(join(repo, 'README.md'), 'hello\n')
    git('add', '.')
    git('commit', '--quiet', '-m', 'first')

    const clean = open(dir, 140, 32, ['-w'], repo)
    const shown = await clean.waitFor(/working in worktree/, 20_000, 'the worktree line')
    assert.match(flat(shown), /\.worktrees\/agent-/)
    const end = await leave(clean)
    assert.match(flat(end), /hadnochangesandwasremoved/)
    assert.equal(git('worktree', 'list').split('\n').length, 1)
    assert.equal(git('status', '--porcelain'), '', 'the project itself stays clean')

    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'from the agent\n' } }] }, { text: 'Wrote notes.txt.' })
    const changed = open(dir, 140, 32, ['-w'], repo)
    await changed.waitFor(/working in worktree/, 20_000, 'the worktree line')
    changed.type('write the notes')
    changed.send('Enter')
    await changed.waitFor(shows('Wrote notes.txt.'), 15_000, 'the answer')
    const kept = await leave(changed)
    const path = flat(kept).match(/worktreekept:(\S+?)\(branch/)?.[1]
    assert.ok(path, flat(kept))
    assert.equal(readFileSync(join(path!, 'notes.txt'), 'utf8'), 'from the agent\n')
    assert.equal(existsSync(join(repo, 'notes.txt')), false, 'the project checkout is untouched')
    assert.equal(git('status', '--porcelain'), '')
  })

  test('reasoning shows with display.show_reasoning and hides after /reasoning hide; a line typed during a turn is queued', async () => {
    const t = open(home({ display: { show_reasoning: true } }))
    await ready(t)
    model.enqueue({ reasoning: 'pondering the tangerine', text: 'first answer '.repeat(30), chunkSize: 4, chunkDelayMs: 30 })
    t.type('think first')
    t.send('Enter')
    await t.waitFor(shows('thinking: pondering the tangerine'), 10_000, 'the reasoning')
    t.type('then this')
    t.send('Enter')
    await t.waitFor(shows('(queued: then this)'), 5_000, 'the queue notice')
    await t.waitFor(answered('then this'), 20_000, 'the queued turn answered after the first')
    const screen = flat(t.capture())
    assert.ok(screen.indexOf(flat('first answer first answer')) < screen.indexOf(flat('Reply to then this')), 'in order')
    t.type('/reasoning hide')
    t.send('Enter')
    await t.waitFor(shows('Reasoning display off.'), 5_000)
    model.enqueue({ reasoning: 'secret musings', text: 'visible answer' })
    t.type('think again')
    t.send('Enter')
    await t.waitFor(shows('visible answer'), 10_000)
    assert.ok(!shows('secret musings')(t.capture()))
  })

  test('a slash command failing with a provider error that echoes a known secret shows it redacted', async () => {
    const dir = home()
    writeFileSync(join(dir, '.env'), `TELEGRAM_BOT_TOKEN=${ECHOED_SECRET}\n`)
    const t = open(dir)
    await ready(t)
    t.type('/plan echo a key')
    t.send('Enter')
    const screen = await t.waitFor(/✗ \/plan:/, 20_000, 'the error line')
    assert.ok(!flat(screen).includes(ECHOED_SECRET), screen)
    assert.ok(shows('also seen: ***')(screen), screen)
    await leave(t)
  })

  test('the status bar follows a terminal resize', async () => {
    const t = open(home(), 160, 24)
    await ready(t)
    t.type('hello')
    t.send('Enter')
    await t.waitFor(answered('hello'), 15_000, 'the answer')
    await t.waitFor((s) => /ctx 2\.1k\/33k 6% │ \$0\.0075/.test(statusLine(s)), 5_000, 'the full bar at 160 columns')
    t.resize(40, 20)
    const small = await t.waitFor((s) => /ctx 6%/.test(statusLine(s)) && !/33k/.test(statusLine(s)), 5_000, 'the short bar at 40 columns')
    assert.ok(statusLine(small).length <= 39, statusLine(small))
    assert.match(statusLine(small), /custom:scripted-model/)
    t.resize(160, 24)
    await t.waitFor((s) => /ctx 2\.1k\/33k 6% │ \$0\.0075/.test(statusLine(s)), 5_000, 'the full bar again')
  })
})
