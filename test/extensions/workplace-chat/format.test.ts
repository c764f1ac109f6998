// The pure parts of the DingTalk adapter: which robot messages reach the agent and with what text,
// the duplicate window, markdown parts and titles, and the reconnect backoff.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { markdownMessages, MAX_MARKDOWN_LENGTH, splitMarkdown, titleOf } from '../../../extensions/workplace-chat/markdown.ts'
import { mentionsRobot, parseRobotMessage, richTextOf, SeenMessages, stripMention, type RobotMessage } from '../../../extensions/workplace-chat/messages.ts'
import { backoffDelay } from '../../../extensions/workplace-chat/stream-client.ts'

const ROBOT = '$:LWCP_v1:$robot'
const base: RobotMessage = {
  msgId: 'msg1',
  msgtype: 'text',
  conversationId: 'cidDM==',
  conversationType: '1',
  senderId: '$:LWCP_v1:$alice',
  senderStaffId: 'staff-alice',
  senderNick: 'Alice',
  chatbotUserId: ROBOT,
  robotCode: 'dingrobot',
  sessionWebhook: 'https://oapi.dingtalk.com/robot/sendBySession?session=abc',
  sessionWebhookExpiredTime: 1_700_000_000_000,
  createAt: 1_699_999_000_000,
  text: { content: '  hello there  ' },
}
const options = { requireMention: true }

test('a direct text message: stable ids, trimmed text, its reply address', () => {
  const result = parseRobotMessage(base, options)
  assert.ok(result.ok)
  assert.deepEqual(result.message, {
    msgId: 'msg1',
    text: 'hello there',
    chatId: 'cidDM==',
    chatType: 'dm',
    userId: 'staff-alice',
    userName: 'Alice',
    staffId: 'staff-alice',
    robotCode: 'dingrobot',
    webhook: { url: 'https://oapi.dingtalk.com/robot/sendBySession?session=abc', expiresAt: 1_700_000_000_000 },
    receivedAt: 1_699_999_000_000,
  })
})

test('without a staff id (an external user) the sender id is the user id', () => {
  const result = parseRobotMessage({ ...base, senderStaffId: undefined }, options)
  assert.ok(result.ok)
  assert.equal(result.message.userId, '$:LWCP_v1:$alice')
  assert.equal(result.message.staffId, undefined)
})

test('groups: only messages that mention the robot, unless require_mention is off', () => {
  const group: RobotMessage = { ...base, conversationType: '2', conversationId: 'cidGroup==', isInAtList: true, atUsers: [{ dingtalkId: ROBOT }], text: { content: ' what is the time?' } }
  const mentioned = parseRobotMessage(group, options)
  assert.ok(mentioned.ok)
  assert.equal(mentioned.message.chatType, 'group')
  assert.equal(mentioned.message.chatId, 'cidGroup==')
  assert.equal(mentioned.message.text, 'what is the time?')
  assert.equal(mentioned.message.staffId, undefined, 'a group is reached by its conversation, not a person')

  const other = { ...group, isInAtList: false, atUsers: [{ dingtalkId: '$:LWCP_v1:$bob' }] }
  const ignored = parseRobotMessage(other, options)
  assert.equal(ignored.ok, false)
  assert.match((ignored as { reason: string }).reason, /does not mention/)
  assert.ok(parseRobotMessage(other, { requireMention: false }).ok)

  // Without the flag, the robot among the mentioned users counts; with neither field, DingTalk's own rule (mentions only) applies.
  assert.equal(mentionsRobot({ ...group, isInAtList: undefined, atUsers: [{ dingtalkId: ROBOT }] }), true)
  assert.equal(mentionsRobot({ ...group, isInAtList: undefined, atUsers: [{ dingtalkId: 'x' }] }), false)
  assert.equal(mentionsRobot({ ...group, isInAtList: undefined, atUsers: undefined }), true)
})

test('the robot name is stripped from group messages; other mentions and e-mail addresses stay', () => {
  assert.equal(stripMention('@Agent  what is up?', 'Agent'), 'what is up?')
  assert.equal(stripMention('ping @Agent please', 'Agent'), 'ping please')
  assert.equal(stripMention('mail agent@Agent.example and @Agentic and @Bob', 'Agent'), 'mail agent@Agent.example and @Agentic and @Bob')
  assert.equal(stripMention('@小助手 你好', '小助手'), '你好')
  assert.equal(stripMention('  @Agent hi  '), '@Agent hi', 'no name configured: only whitespace is trimmed')
  const group: RobotMessage = { ...base, conversationType: '2', isInAtList: true, text: { content: '@Agent (v2) summarise' } }
  const result = parseRobotMessage(group, { requireMention: true, robotName: 'Agent (v2)' })
  assert.ok(result.ok)
  assert.equal(result.message.text, 'summarise')
})

test('rich text: text parts concatenated in order, pictures described', () => {
  const parts = [{ text: 'Please review ' }, { text: 'this plan' }, { type: 'picture', downloadCode: 'dl1', pictureDownloadCode: 'p1' }, { text: '\nthanks' }]
  assert.equal(richTextOf(parts), 'Please review this plan [image] \nthanks')
  const result = parseRobotMessage({ ...base, msgtype: 'richText', text: undefined, content: { richText: parts } }, options)
  assert.ok(result.ok)
  assert.equal(result.message.text, 'Please review this plan [image] \nthanks')
  assert.equal(parseRobotMessage({ ...base, msgtype: 'richText', text: undefined, content: { richText: [{ type: 'picture', downloadCode: 'x' }] } }, options).ok, true, 'a picture alone is described')
})

test('voice messages use DingTalk recognition; other types and broken messages are ignored', () => {
  const voice = parseRobotMessage({ ...base, msgtype: 'audio', text: undefined, content: { recognition: 'turn on the lights' } }, options)
  assert.ok(voice.ok)
  assert.equal(voice.message.text, 'turn on the lights')
  const reasons = [
    parseRobotMessage({ ...base, msgtype: 'picture', text: undefined, content: {} }, options),
    parseRobotMessage({ ...base, msgtype: 'file', text: undefined }, options),
    parseRobotMessage({ ...base, msgId: undefined }, options),
    parseRobotMessage({ ...base, senderId: undefined, senderStaffId: undefined }, options),
    parseRobotMessage({ ...base, text: { content: '   ' } }, options),
    parseRobotMessage(null as never, options),
  ].map((r) => (r.ok ? 'accepted' : r.reason))
  assert.deepEqual(reasons, ['unsupported message type "picture"', 'unsupported message type "file"', 'no msgId', 'no sender id', 'empty text', 'not a robot message'])
})

test('duplicates are recognised for five minutes, and the memory stays bounded', () => {
  let now = 0
  const seen = new SeenMessages(5 * 60_000, 100, () => now)
  assert.equal(seen.check('a'), false)
  now = 4 * 60_000
  assert.equal(seen.check('a'), true, 'within the window')
  assert.equal(seen.check('b'), false)
  now = 5 * 60_000 + 1
  assert.equal(seen.check('a'), false, 'after the window it is new again')
  for (let i = 0; i < 1000; i++) seen.check(`m${i}`)
  assert.ok(seen.size <= 100, `size ${seen.size}`)
  assert.equal(seen.check('m999'), true, 'the newest are kept')
})

test('markdown parts stay within the limit, split at line breaks, code fences balanced and indentation kept', () => {
  const code = '```ts\n' + Array.from({ length: 400 }, (_, i) => `    const value${i} = ${i} // a line of code`).join('\n') + '\n```'
  const text = `# Report\n\n${'Some prose. '.repeat(300)}\n\n${code}\n\nThe end.`
  const parts = splitMarkdown(text, 2000)
  assert.ok(parts.length > 5)
  for (const part of parts) {
    assert.ok(part.length <= 2000, `part of ${part.length}`)
    const fences = part.match(/^```/gm)?.length ?? 0
    assert.equal(fences % 2, 0, `unbalanced fences in:\n${part.slice(0, 200)}`)
  }
  for (const line of parts.join('\n').split('\n')) if (line.includes('const value')) assert.match(line, /^ {4}const/, 'code keeps its indentation')
  const joined = parts.join('\n')
  for (const i of [0, 199, 399]) assert.match(joined, new RegExp(`const value${i} = ${i} `))
  assert.match(parts.at(-1)!, /The end\.$/)
  assert.deepEqual(splitMarkdown('short'), ['short'])
  assert.deepEqual(splitMarkdown('   '), [])
  assert.equal(MAX_MARKDOWN_LENGTH, 5000)
})

test('titles: the first line without markup, cut; parts numbered', () => {
  assert.equal(titleOf('## **Weather** for [Paris](https://x.test)\nbody'), 'Weather for Paris')
  assert.equal(titleOf('```\ncode\n```'), 'code')
  assert.equal(titleOf(''), 'Reply')
  assert.equal(titleOf('x'.repeat(100)).length, 40)
  const messages = markdownMessages(`Hello\n${'word '.repeat(3000)}`, 5000)
  assert.equal(messages.length, 4)
  assert.deepEqual(messages.map((m) => m.markdown.title), ['Hello (1/4)', 'Hello (2/4)', 'Hello (3/4)', 'Hello (4/4)'])
  assert.ok(messages.every((m) => m.msgtype === 'markdown' && m.markdown.text.length <= 5000))
  assert.deepEqual(markdownMessages('**Done.**'), [{ msgtype: 'markdown', markdown: { title: 'Done.', text: '**Done.**' } }])
})

test('reconnect backoff: doubles from the initial delay, capped, jittered within [base/2, base]', () => {
  const backoff = { initialMs: 1000, maxMs: 60_000 }
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => backoffDelay(n, backoff, () => 1)), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000])
  assert.deepEqual([1, 2, 7].map((n) => backoffDelay(n, backoff, () => 0)), [500, 1000, 30000])
  for (let i = 0; i < 200; i++) {
    const d = backoffDelay(3, backoff)
    assert.ok(d >= 2000 && d <= 4000, String(d))
  }
})
