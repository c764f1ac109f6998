// The interactive chat asks dangerous-command approvals itself: the question is shown, the next
// submitted line answers it, anything unrecognised denies, and leaving the chat denies the rest.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApprovalQuestions, parseApprovalAnswer } from '../../../extensions/chat-cli/approval-prompt.ts'

const request = { id: 'r1', sessionId: 's', tool: 'terminal', command: 'rm -rf build', findings: [{ key: 'rm-r', description: 'recursive delete' }], createdAt: 0, expiresAt: 1 }

test('answers map to choices; anything else denies', () => {
  assert.equal(parseApprovalAnswer('y'), 'once')
  assert.equal(parseApprovalAnswer(' Session '), 'session')
  assert.equal(parseApprovalAnswer('always'), 'always')
  assert.equal(parseApprovalAnswer('sure, why not'), 'deny')
  assert.equal(parseApprovalAnswer(''), 'deny')
})

test('a question is shown, answered by the next line, and leaving denies what waits', async () => {
  const shown: string[][] = []
  const questions = new ApprovalQuestions((lines) => shown.push(lines))
  const first = questions.prompt(request)
  assert.equal(questions.pending, true)
  assert.match(shown[0]!.join('\n'), /terminal wants to run\n {4}rm -rf build\n {2}recursive delete/)
  assert.equal(questions.answer('s'), 'session')
  assert.equal(await first, 'session')
  const second = questions.prompt(request)
  questions.denyAll()
  assert.equal(await second, 'deny')
  assert.equal(questions.pending, false)
})
