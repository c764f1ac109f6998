// The interactive chat asks a tool's questions (an MCP server's elicitation) itself: each field in
// turn, a bad answer asks again, Enter takes the default or skips an optional field, /decline and
// /cancel refuse, forms wait their turn, and leaving the chat cancels what waits.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseElicitationValue, type ElicitationRequest } from 'agent/sdk'
import { ElicitationQuestions } from '../../../extensions/chat-cli/elicitation-prompt.ts'

const form: ElicitationRequest = {
  from: 'MCP server "ev"',
  message: 'Tell me about you',
  fields: [
    { name: 'name', title: 'Name', type: 'string', required: true },
    { name: 'age', title: 'Age', type: 'integer', required: false, minimum: 1, maximum: 150 },
    { name: 'hero', title: 'Hero', type: 'string', required: false, choices: [{ value: 'hero-1', label: 'Superman' }, { value: 'hero-2', label: 'Wonder Woman' }], default: 'hero-1' },
    { name: 'tools', title: 'Tools', type: 'array', required: false, choices: [{ value: 'g', label: 'Guitar' }, { value: 'p', label: 'Piano' }] },
    { name: 'ok', title: 'Agree', type: 'boolean', required: true },
  ],
}

test('answers become values; look-alike answers are refused with a reason', () => {
  const [name, age, hero, tools, ok] = form.fields as [any, any, any, any, any]
  assert.deepEqual(parseElicitationValue(name, ''), { error: 'Name is required' })
  assert.deepEqual(parseElicitationValue(age, ''), { value: undefined })
  assert.deepEqual(parseElicitationValue(age, '42'), { value: 42 })
  assert.match((parseElicitationValue(age, '4.5') as { error: string }).error, /whole number/)
  assert.match((parseElicitationValue(age, '200') as { error: string }).error, /between 1 and 150/)
  assert.deepEqual(parseElicitationValue(hero, ''), { value: 'hero-1' })
  assert.deepEqual(parseElicitationValue(hero, 'wonder woman'), { value: 'hero-2' })
  assert.deepEqual(parseElicitationValue(hero, '2'), { value: 'hero-2' })
  assert.match((parseElicitationValue(hero, 'Batman') as { error: string }).error, /choose one of 1\) Superman/)
  assert.deepEqual(parseElicitationValue(tools, 'Piano, guitar'), { value: ['p', 'g'] })
  assert.deepEqual(parseElicitationValue(ok, 'yes'), { value: true })
  assert.deepEqual(parseElicitationValue(ok, 'n'), { value: false })
  assert.match((parseElicitationValue(ok, 'maybe') as { error: string }).error, /yes or no/)
})

test('a form is asked field by field; a bad answer asks again; the answers go back', async () => {
  const shown: string[] = []
  const questions = new ElicitationQuestions((lines) => shown.push(...lines))
  const answer = questions.prompt(form)
  assert.equal(questions.pending, true)
  assert.match(shown.join('\n'), /\? MCP server "ev" asks: Tell me about you[\s\S]*Name:/)
  assert.equal(questions.answer(''), '')
  assert.match(shown.at(-1)!, /Name is required\. Name:/)
  questions.answer('Ada')
  questions.answer('')
  assert.match(shown.at(-1)!, /Hero \[1\) Superman {2}2\) Wonder Woman\] \(Enter: hero-1\):/)
  questions.answer('')
  questions.answer('piano')
  assert.equal(questions.answer('y'), '✓ sent')
  assert.deepEqual(await answer, { action: 'accept', content: { name: 'Ada', hero: 'hero-1', tools: ['p'], ok: true } })
  assert.equal(questions.pending, false)
})

test('/decline and /cancel refuse; forms wait their turn; leaving cancels the rest', async () => {
  const questions = new ElicitationQuestions(() => undefined)
  const first = questions.prompt(form)
  const second = questions.prompt({ from: 'x', message: 'confirm?', fields: [] })
  const third = questions.prompt(form)
  assert.equal(questions.answer('/decline'), '✗ declined')
  assert.deepEqual(await first, { action: 'decline' })
  assert.equal(questions.answer('y'), '✓ accepted')
  assert.deepEqual(await second, { action: 'accept', content: {} })
  questions.cancelAll()
  assert.deepEqual(await third, { action: 'cancel' })
  assert.equal(questions.pending, false)
})
