// The CLI's stdout hold: writes held while extensions load, released in order for an ordinary
// command, or sent to the log for a protocol command whose writer alone reaches the real stdout.

import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { holdStdout, namedCommand } from '../../kernel/stdout-guard.ts'

function fakeStdout() {
  const written: string[] = []
  const stream = {
    write(chunk: unknown, encoding?: unknown, callback?: unknown) {
      written.push(String(chunk))
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') done(null)
      return true
    },
  }
  return { stream: stream as unknown as NodeJS.WriteStream, written, original: stream.write }
}

describe('holdStdout', () => {
  it('holds writes and releases them in order, then gives stdout back', () => {
    const out = fakeStdout()
    const hold = holdStdout(out.stream)
    out.stream.write('one\n')
    out.stream.write(Buffer.from('two\n'))
    assert.deepEqual(out.written, [])
    hold.release()
    assert.deepEqual(out.written, ['one\n', 'two\n'])
    out.stream.write('three\n')
    assert.deepEqual(out.written, ['one\n', 'two\n', 'three\n'])
    assert.equal(out.stream.write, out.original)
  })

  it('reserves stdout for the protocol: held and later writes go astray, the protocol stream alone gets through', async () => {
    const out = fakeStdout()
    const hold = holdStdout(out.stream)
    out.stream.write('noise at load\n')
    const stray: string[] = []
    const protocol = hold.reserve((text, stack) => {
      assert.ok(stack?.includes('stdout-guard.test.ts'), 'the writer is named by the stack')
      stray.push(text)
    })
    out.stream.write('noise at run time\n')
    await new Promise<void>((resolve, reject) => protocol.write('{"jsonrpc":"2.0"}\n', (error) => (error ? reject(error) : resolve())))
    assert.deepEqual(stray, ['noise at load', 'noise at run time'])
    assert.deepEqual(out.written, ['{"jsonrpc":"2.0"}\n'])
    hold.restore()
    out.stream.write('after\n')
    assert.deepEqual(out.written, ['{"jsonrpc":"2.0"}\n', 'after\n'])
  })
})

describe('namedCommand', () => {
  const commands = [
    { name: 'acp', cli: { stdio: 'protocol' as const } },
    { name: 'mcp', aliases: ['m'], cli: { subcommands: { serve: { description: 's', stdio: 'protocol' as const }, list: { description: 'l' } } } },
    { name: 'chat', cli: {} },
  ]
  it('finds the command and subcommand the arguments name, past options', () => {
    assert.equal(namedCommand(['acp', '--model', 'x'], commands)?.stdio, 'protocol')
    assert.equal(namedCommand(['mcp', 'serve', '--toolsets', 'a'], commands)?.stdio, 'protocol')
    assert.equal(namedCommand(['m', 'serve'], commands)?.stdio, 'protocol')
  })
  it('leaves ordinary look-alikes alone', () => {
    assert.equal(namedCommand(['mcp', 'list'], commands)?.stdio, undefined)
    assert.equal(namedCommand(['chat', '-q', 'acp'], commands)?.stdio, undefined)
    assert.equal(namedCommand(['nothing'], commands), undefined)
  })
})
