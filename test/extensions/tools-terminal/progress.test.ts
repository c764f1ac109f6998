// Live output of foreground commands as progress lines: whole lines, cleaned of escape sequences,
// bounded per flush, never the persistent shell's marker.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { outputProgress } from '../../../extensions/tools-terminal/progress.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

for (const persistent of [false, true]) {
  test(`terminal reports output lines while the command runs (${persistent ? 'persistent shell' : 'one shell per command'})`, async (t) => {
    const k = await terminalKernel({ config: { terminal: { persistent_shell: persistent } } })
    t.after(() => k.close())
    const dir = tempDir(t)
    const lines: string[] = []
    // The command waits until the test has seen its first lines: they can only have come while it ran.
    const s = session(dir, {
      progress: (text) => {
        lines.push(...text.split('\n'))
        if (lines.includes('red')) writeFileSync(join(dir, 'seen'), '')
      },
    })
    const command = "echo one; printf '\\033[31mred\\033[0m\\n'; while [ ! -f seen ]; do sleep 0.05; done; echo two"
    const result = await k.call('terminal', { command, timeout: 30 }, s)
    assert.equal(result.exit_code, 0, JSON.stringify(result))
    assert.ok(lines.includes('one'), `progress lines: ${JSON.stringify(lines)}`)
    assert.ok(lines.includes('red'), 'escape sequences are removed')
    assert.ok(!lines.some((l) => l.includes('__AGENT_DONE_')), 'the marker is not output')
    assert.ok(lines.every((l) => !/[\x00-\x08\x0b-\x1f]/.test(l)))
  })
}

test('progress lines are bounded per flush and whole lines only', async () => {
  const sent: string[] = []
  let done!: () => void
  const flushed = new Promise<void>((resolve) => (done = resolve))
  const progress = outputProgress((text) => (sent.push(text), done()), 10)
  progress.push(Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\nhalf a li')
  progress.push('x'.repeat(5000))
  // The reporter's timer does not hold the process open; this one does, until the flush.
  const hold = setTimeout(() => undefined, 5000)
  await flushed
  clearTimeout(hold)
  progress.close()
  const lines = sent.join('\n').split('\n')
  assert.ok(lines.length <= 5, `${lines.length} lines`)
  assert.ok(lines.every((l) => l.length <= 400))
  assert.ok(lines.includes('line 99'))
  // A partial line is held until its newline (or until it is too long to wait for).
  assert.ok(!lines.includes('half a li'))
})

test('without a progress channel the command just runs; a closed reporter sends nothing', async () => {
  const none = outputProgress(undefined)
  none.push('a\n')
  none.close()
  const sent: string[] = []
  const p = outputProgress((text) => sent.push(text), 5)
  p.push('a\nb\n')
  p.close()
  await new Promise((r) => setTimeout(r, 30))
  assert.deepEqual(sent, [])
})
