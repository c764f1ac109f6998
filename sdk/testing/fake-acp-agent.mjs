// A scripted ACP agent for tests, run as a real subprocess: JSON-RPC over stdio (initialize,
// session/new, session/prompt with session/update chunks, session/cancel). Its script lives in the
// state folder given as the first argument: queue.json (ScriptedTurns, one taken per prompt) and
// requests.jsonl (each prompt's params, appended).

import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const dir = process.argv[2]
const queueFile = join(dir, 'queue.json')
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
let cancelled = false
let nextId = 1000
const waiting = new Map()

function takeTurn(params) {
  const queue = existsSync(queueFile) ? JSON.parse(readFileSync(queueFile, 'utf8')) : []
  const turn = queue.shift()
  writeFileSync(queueFile, JSON.stringify(queue))
  if (turn) return turn
  const text = params.prompt?.map((b) => b.text ?? '').join('') ?? ''
  const last = text.split('### user\n').at(-1)?.split('\n\n### ')[0] ?? ''
  return { text: `echo: ${last}` }
}

async function prompt(id, params) {
  appendFileSync(join(dir, 'requests.jsonl'), `${JSON.stringify(params)}\n`)
  const turn = takeTurn(params)
  const sessionId = params.sessionId
  const update = (sessionUpdate, text) => send({ method: 'session/update', params: { sessionId, update: { sessionUpdate, content: { type: 'text', text } } } })
  if (turn.delayMs) {
    for (let waited = 0; waited < turn.delayMs && !cancelled; waited += 20) await sleep(20)
    if (cancelled) return send({ id, result: { stopReason: 'cancelled' } })
  }
  if (turn.dropConnection) {
    process.stderr.write('fake agent: connection to the service lost\n')
    process.exit(3)
  }
  if (turn.status) return send({ id, error: { code: -32000, message: turn.error ?? 'scripted failure' } })
  // Ask for a permission once, as real agents do before acting; the client must answer.
  const answer = new Promise((resolve) => waiting.set(nextId, resolve))
  send({ id: nextId++, method: 'session/request_permission', params: { sessionId, toolCall: { toolCallId: 'x', title: 'run something' }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] } })
  const permission = await answer
  appendFileSync(join(dir, 'permissions.jsonl'), `${JSON.stringify(permission)}\n`)
  const size = Math.max(1, turn.chunkSize ?? 8)
  if (turn.reasoning) for (let i = 0; i < turn.reasoning.length; i += size) update('agent_thought_chunk', turn.reasoning.slice(i, i + size))
  let text = turn.text ?? ''
  for (const call of turn.toolCalls ?? []) {
    const block = { name: call.name, arguments: call.arguments }
    if (call.id) block.id = call.id
    text += `\n<tool_call>${JSON.stringify(block)}</tool_call>`
  }
  for (let i = 0; i < text.length; i += size) {
    update('agent_message_chunk', text.slice(i, i + size))
    if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs)
  }
  send({ id, result: { stopReason: 'end_turn' } })
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line)
  if (message.method === undefined) {
    waiting.get(message.id)?.(message.result ?? message.error)
    return waiting.delete(message.id)
  }
  switch (message.method) {
    case 'initialize':
      return send({ id: message.id, result: { protocolVersion: 1, agentCapabilities: { loadSession: false }, authMethods: [] } })
    case 'session/new':
      return send({ id: message.id, result: { sessionId: 'sess-1' } })
    case 'session/prompt':
      return void prompt(message.id, message.params)
    case 'session/cancel':
      cancelled = true
      return
    default:
      if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } })
  }
})
