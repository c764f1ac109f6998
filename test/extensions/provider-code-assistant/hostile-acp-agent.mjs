// An ACP agent that answers too much, for the answer-cap tests of the ACP shim, run as a real
// subprocess: `node hostile-acp-agent.mjs <state dir> <mode> [bytes]`. It appends its pid to
// <state dir>/pids (one line a start), answers initialize and session/new, then answers session/prompt by mode:
//   endless  message and thought chunks of 64 KiB, alternating, for ever (as fast as stdout drains)
//   line     one session/update line that never ends (no newline, for ever)
//   sized    `bytes` characters of message chunks in 64 KiB pieces, then end_turn
//   one-line `bytes` characters in one message chunk on one line, then end_turn
// Every mode first writes a stderr line of 1 MiB without a newline, then a short one: the client
// must keep only a bounded head of each.

import { appendFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const [dir, mode, bytes] = process.argv.slice(2)
appendFileSync(join(dir, 'pids'), `${process.pid}\n`)
const PIECE = 64 * 1024
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
const update = (sessionUpdate, text) => ({ method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate, content: { type: 'text', text } } } })

/** Writes `next()` (undefined: done) as fast as stdout drains. */
function pump(next, done = () => {}) {
  const feed = () => {
    for (;;) {
      const piece = next()
      if (piece === undefined) return done()
      if (!process.stdout.write(piece)) return void process.stdout.once('drain', feed)
    }
  }
  feed()
}

function prompt(id) {
  let n = 0
  if (mode === 'endless') pump(() => `${JSON.stringify({ jsonrpc: '2.0', ...update(n++ % 2 ? 'agent_thought_chunk' : 'agent_message_chunk', 'e'.repeat(PIECE)) })}\n`)
  else if (mode === 'line') pump(() => (n++ === 0 ? '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"' : 'y'.repeat(PIECE)))
  else if (mode === 'sized') {
    let left = Number(bytes)
    pump(
      () => {
        if (left <= 0) return undefined
        const text = 's'.repeat(Math.min(PIECE, left))
        left -= text.length
        return `${JSON.stringify({ jsonrpc: '2.0', ...update('agent_message_chunk', text) })}\n`
      },
      () => send({ id, result: { stopReason: 'end_turn' } }),
    )
  } else {
    send(update('agent_message_chunk', 'o'.repeat(Number(bytes))))
    send({ id, result: { stopReason: 'end_turn' } })
  }
}

process.stderr.write('x'.repeat(1024 * 1024))
process.stderr.write('\nhostile agent: started\n')
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.method === 'initialize') send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } })
  else if (message.method === 'session/new') send({ id: message.id, result: { sessionId: 's1' } })
  else if (message.method === 'session/prompt') prompt(message.id)
})
