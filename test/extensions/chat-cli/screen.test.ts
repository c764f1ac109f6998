// The chat screen in a real terminal (tmux) against the scripted model: it survives resizes (shrink
// and grow, between turns and while one streams) with the prompt and status bar in place and no stale
// rows; output wraps at word boundaries; answers are rendered markdown (plain text unchanged);
// display.theme light and dark colour differently.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { hasTmux, openTerminal, type Terminal } from '../../helpers/tmux.ts'

const TAIL = 'and that is the end of the streamed answer.'
const MODEL = /custom:scripted-model/

const MARKDOWN = [
  '# Release notes',
  '',
  'Some **bold words** and a [link](https://example.com/docs).',
  '',
  '- first item',
  '- second **item** with `code`',
  '',
  '```js',
  'const answer = 42',
  '```',
  '',
  '| name | size |',
  '|------|------|',
  '| alpha | 1 |',
  '| beta | 22 |',
  '',
  'The end.',
].join('\n')

describe('the chat screen in a terminal', { skip: hasTmux() ? false : 'tmux is not installed (apt-get install tmux)' }, () => {
  let model: ScriptedModelServer
  const homes: string[] = []
  const terminals: Terminal[] = []

  before(async () => {
    model = await startScriptedModel({
      models: ['scripted-model'],
      respond: (body) => {
        const last = [...body.messages].reverse().find((m: any) => m.role === 'user')?.content ?? ''
        return { text: `Reply to ${last}: ${'word '.repeat(40)}${TAIL}`, chunkSize: 6, chunkDelayMs: 30, usage: { prompt_tokens: 2000, completion_tokens: 100 } }
      },
    })
  })
  after(async () => {
    for (const t of terminals) t.close()
    await model.close()
    for (const home of homes) rmSync(home, { recursive: true, force: true })
  })

  function open(columns: number, rows: number, display: Record<string, unknown> = {}): Terminal {
    const dir = makeTempHome('agent-screen-')
    homes.push(dir)
    writeFileSync(join(dir, 'config.yaml'), YAML.stringify({ _config_version: 10, model: { context_length: 32768 }, display }))
    const t = openTerminal({ home: dir, columns, rows, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
    terminals.push(t)
    return t
  }

  const lines = (screen: string) => screen.replace(/\n$/, '').split('\n')
  const flat = (text: string) => text.replace(/\s+/g, '')
  const shows = (text: string) => (screen: string) => flat(screen).includes(flat(text))
  const statusLine = (screen: string) => screen.split('\n').filter((l) => l.trim()).pop() ?? ''
  const answered = (prompt: string) => (screen: string) => shows(`Reply to ${prompt}: ${'word '.repeat(40)}${TAIL}`)(screen) && !/●/.test(statusLine(screen))
  const ready = (t: Terminal) => t.waitFor((s) => MODEL.test(statusLine(s)), 20_000, 'the status bar with the served model')

  /** The layout holds: the status bar only on the last row, the prompt right above it, nothing stale between. */
  function assertLayout(screen: string, rows: number, columns: number): void {
    const all = lines(screen)
    assert.equal(all.length, rows, `the pane has ${rows} rows:\n${screen}`)
    assert.match(all[rows - 1]!, MODEL, `the status bar is on the last row:\n${screen}`)
    assert.ok(all[rows - 1]!.length <= columns, `the status bar fits ${columns} columns`)
    assert.equal(all.filter((l) => MODEL.test(l)).length, 1, `one status bar, no stale copy mid-screen:\n${screen}`)
    assert.match(all[rows - 2]!, /^› $|^›$/, `the empty prompt is right above the status bar:\n${screen}`)
  }

  async function turn(t: Terminal, prompt: string, rows: number, columns: number): Promise<string> {
    t.type(prompt)
    t.send('Enter')
    await t.waitFor(answered(prompt), 20_000, `the answer to "${prompt}"`)
    const screen = await t.waitFor((s) => /^›\s*$/.test(lines(s)[rows - 2] ?? ''), 5_000, 'the prompt back')
    assertLayout(screen, rows, columns)
    return screen
  }

  test('120×30 → 36 rows → 45×20, a message after each resize: answer and prompt appear, no stale status bar', async () => {
    const t = open(120, 30)
    await ready(t)
    await turn(t, 'first one', 30, 120)
    t.resize(120, 36)
    await t.waitFor((s) => lines(s).length === 36 && MODEL.test(lines(s)[35]!), 5_000, 'the bar on row 36')
    await turn(t, 'second one', 36, 120)
    t.resize(45, 20)
    await t.waitFor((s) => lines(s).length === 20 && MODEL.test(lines(s)[19]!), 5_000, 'the bar on row 20')
    const small = await turn(t, 'third one', 20, 45)
    for (const line of lines(small)) assert.ok(line.length <= 45, `a row wider than the pane: ${line}`)
    // Grown again, the conversation is drawn at the new width, not left as it was.
    t.resize(120, 30)
    const rewrapped = (s: string) => lines(s).length === 30 && MODEL.test(lines(s)[29]!) && lines(s).some((l) => l.length > 60 && l.includes('word word'))
    const grown = await t.waitFor(rewrapped, 5_000, 'the answer re-wrapped at 120 columns, the bar on row 30')
    assertLayout(grown, 30, 120)
    await turn(t, 'fourth one', 30, 120)
  })

  test('a turn in progress keeps streaming into the new size (shrink, then grow)', async () => {
    const t = open(120, 30)
    await ready(t)
    model.enqueue({ text: `Streaming ${'long '.repeat(120)}${TAIL}`, chunkSize: 5, chunkDelayMs: 25 })
    t.type('stream please')
    t.send('Enter')
    await t.waitFor((s) => shows('Streaming long long')(s) && !shows(TAIL)(s), 10_000, 'a partial answer')
    t.resize(45, 20)
    await t.waitFor((s) => lines(s).length === 20, 5_000, 'the smaller pane')
    t.resize(100, 32)
    const done = await t.waitFor((s) => shows(TAIL)(s) && !/●/.test(statusLine(s)), 20_000, 'the end of the answer')
    assertLayout(done, 32, 100)
    // Every row of the answer is full words, wrapped at this width.
    const rows = lines(done).filter((l) => /long/.test(l))
    assert.ok(rows.length >= 5, done)
    for (const row of rows) assert.ok(row.length <= 100)
  })

  test('long lines wrap at word boundaries', async () => {
    const words = ['extraordinary', 'wrapping', 'of', 'considerably', 'long', 'words', 'across', 'several', 'terminal', 'rows']
    const text = Array.from({ length: 6 }, () => words.join(' ')).join(' ')
    const t = open(45, 24)
    await ready(t)
    model.enqueue({ text, chunkSize: 7, chunkDelayMs: 10 })
    t.type('wrap it')
    t.send('Enter')
    const screen = await t.waitFor((s) => flat(s).includes(flat(text)) && !/●/.test(statusLine(s)), 15_000, 'the wrapped answer')
    const answerRows = lines(screen).filter((l) => l.includes('extraordinary') || l.includes('considerably') || l.includes('terminal'))
    assert.ok(answerRows.length >= 6, screen)
    for (const row of answerRows) {
      assert.ok(row.length <= 45)
      for (const token of row.trim().split(/\s+/)) assert.ok(words.includes(token), `"${token}" is a piece of a word cut at the edge:\n${screen}`)
    }
  })

  test('a markdown answer is rendered (heading, list, code, table, link); a plain answer is unchanged', async () => {
    const t = open(100, 40)
    await ready(t)
    model.enqueue({ text: MARKDOWN, chunkSize: 9, chunkDelayMs: 10 })
    t.type('notes please')
    t.send('Enter')
    const screen = await t.waitFor((s) => shows('The end.')(s) && !/●/.test(statusLine(s)), 15_000, 'the rendered answer')
    assert.match(screen, /^Release notes\s*$/m, 'the heading without its #')
    assert.doesNotMatch(screen, /^#/m)
    assert.doesNotMatch(screen, /\*\*/, 'no raw bold markers')
    assert.match(screen, /Some bold words and a link \(https:\/\/example\.com\/docs\)/)
    assert.match(screen, /^\s+\* first item$/m)
    assert.match(screen, /^\s+\* second item with code$/m)
    assert.doesNotMatch(screen, /`/, 'no raw code marks')
    assert.match(screen, /^\s+const answer = 42$/m, 'the code without its fence')
    assert.doesNotMatch(screen, /```/)
    assert.doesNotMatch(screen, /\|---/, 'no raw table')
    assert.match(screen, /│ alpha\s+│ 1\s+│/)
    assert.match(screen, /┌/)
    // Highlighted: the code's keyword has a colour of its own.
    assert.match(t.capture(true), /38;5;176m\s*const/)

    // At 45 columns the table is laid out again, inside the width.
    t.resize(45, 40)
    const narrow = await t.waitFor((s) => lines(s).some((l) => /^┌─/.test(l)) && lines(s).every((l) => l.length <= 45) && MODEL.test(lines(s)[39]!), 5_000, 'the table at 45 columns')
    assert.match(narrow, /│ alpha\s+│ 1\s+│/)
    t.resize(100, 40)
    t.type('plain please')
    t.send('Enter')
    const plain = await t.waitFor(answered('plain please'), 15_000, 'the plain answer')
    assert.ok(shows(`Reply to plain please: ${'word '.repeat(40)}${TAIL}`)(plain))
    assert.ok(lines(plain).some((l) => l.startsWith('Reply to plain please: word word')), 'a plain paragraph is not indented or styled away')
  })

  test('display.theme light and dark colour the answer differently', async () => {
    const captures: Record<string, string> = {}
    for (const theme of ['dark', 'light']) {
      const t = open(100, 30, { theme })
      await ready(t)
      model.enqueue({ text: '# Heading\n\n`span` text', chunkSize: 50 })
      t.type('colours')
      t.send('Enter')
      await t.waitFor((s) => shows('span text')(s) && !/●/.test(statusLine(s)), 15_000, 'the answer')
      captures[theme] = t.capture(true)
    }
    // tmux re-encodes the attributes: a colour may be followed by other codes before the text.
    const coloured = (colour: number, text: string) => new RegExp(`38;5;${colour}m(\\x1b\\[[0-9;]*m)*${text}`)
    assert.match(captures.dark!, coloured(177, 'Heading'))
    assert.match(captures.light!, coloured(90, 'Heading'))
    assert.doesNotMatch(captures.light!, /38;5;177m/)
    assert.match(captures.dark!, coloured(222, 'span'))
    assert.match(captures.light!, coloured(130, 'span'))
  })

  test('a display.theme other than dark or light stops the chat with exit 2 and the fix; light passes', async () => {
    const bad = open(80, 20, { theme: 'blue' })
    await bad.waitFor(/\[agent exited 2\]/, 20_000, 'exit 2')
    assert.match(bad.stderr(), /display\.theme must be dark or light \(got "blue"\); set it with: agent config set display\.theme dark/)
    await ready(open(80, 20, { theme: 'light' }))
  })
})
