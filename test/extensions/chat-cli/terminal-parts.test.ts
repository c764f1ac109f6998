// The interactive chat's parts on their own: the status bar fits every width and colours context
// by threshold; the line editor's keys, multi-line input, history and wrapping; completion from the
// registry; the screen wraps output at word boundaries and repaints from its model.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { CommandDefinition } from '../../../sdk/index.ts'
import { complete, suggest } from '../../../extensions/chat-cli/completion.ts'
import { LineEditor } from '../../../extensions/chat-cli/input.ts'
import { Screen, wordWrapReady, wrapRows } from '../../../extensions/chat-cli/screen.ts'
import { renderStatusBar, type StatusState } from '../../../extensions/chat-cli/status-bar.ts'
import { createTheme, stripAnsi, textWidth } from '../../../extensions/chat-cli/theme.ts'

const state: StatusState = { model: 'openrouter:anthropic/claude-sonnet-4.5', contextTokens: 90_000, contextLength: 128_000, costUsd: 1.234, showCost: true, elapsedMs: 3_723_000, busy: true, queued: 2, background: 1 }

test('the status bar fits every width from 10 to 200 columns, keeping the model', () => {
  for (const mode of ['dark', 'light'] as const) {
    const theme = createTheme(mode)
    for (let width = 10; width <= 200; width++) {
      const bar = renderStatusBar(state, width, theme)
      assert.equal(textWidth(bar), width - 1, `width ${width}: ${stripAnsi(bar)}`)
      if (width >= 50) assert.match(stripAnsi(bar), /openrouter:anthropic\/claude-sonnet-4\.5/)
    }
  }
  const wide = stripAnsi(renderStatusBar(state, 160, createTheme('dark')))
  assert.match(wide, /ctx 90k\/128k 70% │ \$1\.23 │ 1h 02m │ ● running, 2 queued, 1 bg/)
  const narrow = stripAnsi(renderStatusBar(state, 60, createTheme('dark')))
  assert.match(narrow, /ctx 70%/)
})

test('context is coloured by threshold and cost follows display.show_cost', () => {
  const theme = createTheme('dark')
  const colour = (tokens: number) => renderStatusBar({ ...state, contextTokens: tokens }, 160, theme).match(/\x1b\[(38;5;\d+)mctx/)?.[1]
  assert.equal(colour(10_000), '38;5;114')
  assert.equal(colour(80_000), '38;5;221')
  assert.equal(colour(120_000), '38;5;203')
  assert.doesNotMatch(stripAnsi(renderStatusBar({ ...state, showCost: false }, 160, theme)), /\$/)
  assert.doesNotMatch(renderStatusBar(state, 160, createTheme('dark', false)), /\x1b/)
})

test('the editor: insert, move, delete, multi-line, history', () => {
  const e = new LineEditor(['first', 'second'])
  for (const ch of 'hello') e.handleKey(ch, { name: ch })
  e.handleKey(undefined, { name: 'left' })
  e.handleKey(undefined, { name: 'backspace' })
  assert.equal(e.value, 'helo')
  e.handleKey(undefined, { name: 'e', ctrl: true })
  e.handleKey('\\', { name: '\\' })
  assert.equal(e.handleKey('\r', { name: 'return' }), 'changed', 'a trailing backslash continues the line')
  e.handleKey('x', { name: 'x' })
  e.handleKey('\n', { name: 'enter' })
  e.handleKey('y', { name: 'y' })
  assert.equal(e.value, 'helo\nx\ny')
  assert.equal(e.handleKey('\r', { name: 'return' }), 'submit')
  e.handleKey(undefined, { name: 'w', ctrl: true })
  assert.equal(e.value, 'helo\nx\n')
  e.clear()
  e.handleKey(undefined, { name: 'up' })
  assert.equal(e.value, 'second')
  e.handleKey(undefined, { name: 'up' })
  assert.equal(e.value, 'first')
  e.handleKey(undefined, { name: 'down' })
  e.handleKey(undefined, { name: 'down' })
  assert.equal(e.value, '', 'back to the draft')
  e.handleKey(undefined, { name: 'paste-start' })
  e.handleKey('a', { name: 'a' })
  assert.equal(e.handleKey('\r', { name: 'return' }), 'changed', 'Enter inside a paste is a newline')
  e.handleKey('b', { name: 'b' })
  e.handleKey(undefined, { name: 'paste-end' })
  assert.equal(e.value, 'a\nb')
  assert.equal(e.handleKey(undefined, { name: 'c', ctrl: true }), 'interrupt')
  e.clear()
  assert.equal(e.handleKey(undefined, { name: 'd', ctrl: true }), 'eof')
})

test('the editor wraps at the width and keeps the cursor on the right row', () => {
  const e = new LineEditor()
  e.set('abcdefghij\nklm')
  const layout = e.layout(6)
  assert.deepEqual(layout.lines, ['› abcd', 'efghij', '  klm'])
  assert.deepEqual(layout.cursor, { row: 2, col: 5 })
  e.set('漢字漢字', 0)
  assert.deepEqual(e.layout(6).lines, ['› 漢字', '漢字'])
  const limited = new LineEditor()
  limited.set('1\n2\n3\n4\n5')
  assert.deepEqual(limited.layout(80, 2).lines, ['  4', '  5'])
})

test('completion and suggestions come from the registry', () => {
  const commands: CommandDefinition[] = [
    { name: 'model', category: 'C', description: '', argsHint: '[<model>] [--save]', slash: () => undefined },
    { name: 'reasoning', category: 'C', description: '', argsHint: '[none|low|medium|high|xhigh|show|hide]', slash: () => undefined },
    { name: 'resume', category: 'S', description: '', slash: () => undefined },
    { name: 'approve', category: 'S', description: '', scope: 'gateway', slash: () => undefined },
  ]
  assert.deepEqual(complete(commands, '/mo'), { text: '/model ', candidates: [] })
  assert.deepEqual(complete(commands, '/re'), { text: undefined, candidates: ['/reasoning', '/resume'] })
  assert.deepEqual(complete(commands, '/reasoning h'), { text: '/reasoning hi', candidates: ['high', 'hide'] })
  assert.deepEqual(complete(commands, '/reasoning x'), { text: '/reasoning xhigh ', candidates: [] })
  assert.deepEqual(complete(commands, '/ap').candidates, [], 'gateway-only commands are not offered in the CLI')
  assert.deepEqual(suggest(commands, 'modle'), ['model'])
})

test('output wraps at word boundaries by display width; long words are cut, styles and wide characters kept', async () => {
  await wordWrapReady()
  const rows = wrapRows('the quick brown fox jumps over the lazy dog', 12)
  assert.deepEqual(rows.map((r) => r.trimEnd()), ['the quick', 'brown fox', 'jumps over', 'the lazy dog'])
  assert.deepEqual(wrapRows('abcdefghijklmnop', 5), ['abcde', 'fghij', 'klmno', 'p'])
  // Wide characters take two columns; escape codes none, and a style goes on on the next row.
  const wide = wrapRows('日本語のテキスト です', 8)
  for (const row of wide) assert.ok(textWidth(row) <= 8, JSON.stringify(row))
  assert.equal(wide.join('').replace(/ /g, ''), '日本語のテキストです')
  const styled = wrapRows(`\x1b[1mbold words that wrap\x1b[22m`, 10)
  assert.equal(styled.length, 2)
  assert.ok(styled[1]!.startsWith('\x1b[1m'), JSON.stringify(styled))
  assert.deepEqual(wrapRows('a\n\nb', 10), ['a', '', 'b'])
  assert.deepEqual(wrapRows('ab\tc\r\nd', 20), ['ab      c', 'd'], 'tabs to 8-column stops; no carriage return reaches a row')
})

test('the screen repaints from its model: a resize redraws every row, only changed rows are written otherwise', () => {
  let written = ''
  const out = { write: (t: string) => ((written += t), true), columns: 40, rows: 10 }
  const screen = new Screen(out, { statusBar: true })
  screen.start()
  screen.setStatus('STATUS')
  for (let i = 1; i <= 12; i++) screen.print(`line ${i}\n`)
  written = ''
  screen.print('more')
  assert.ok(!stripAnsi(written).includes('line 11'), 'an append does not rewrite the rows above')
  written = ''
  screen.resize(20, 6)
  const text = stripAnsi(written)
  for (const n of [11, 12]) assert.ok(text.includes(`line ${n}`), text)
  assert.ok(text.includes('more') && text.includes('STATUS'), text)
  assert.ok(written.includes('\x1b[1;4r'), 'the region is fenced again for 6 rows (input and status below)')
  // Old output is dropped after 2000 lines; what is shown stays the tail, and appends still scroll.
  for (let i = 13; i <= 2500; i++) screen.print(`line ${i}\n`)
  written = ''
  screen.print('end\n')
  assert.ok(stripAnsi(written).includes('end') && !stripAnsi(written).includes('line 2498'), 'an append after the drop writes only the new row')
  written = ''
  screen.redraw()
  assert.ok(stripAnsi(written).includes('line 2500'), stripAnsi(written))
})
