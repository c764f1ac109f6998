// `session/load`: a stored conversation as the session updates that would have shown it — user
// messages, answers, reasoning, each tool call with its result, and the plan after each `todo`
// call that changed it. Context summaries of compressed turns (system messages) are not part of what the
// user saw and are left out.

import { audioFormatMimeType, PLAN_TOOL, planOfCall, type ChatMessage, type ContentPart, type ToolCall } from 'agent/sdk'
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk/unstable'
import { textContent, toolKind, toolLocations, toolTitle } from './tool-calls.ts'

function blocks(content: ChatMessage['content']): ContentBlock[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : []
  if (!Array.isArray(content)) return []
  return content.flatMap((part: ContentPart): ContentBlock[] => {
    if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : []
    if (part.type === 'input_audio') return [{ type: 'audio', mimeType: audioFormatMimeType(part.input_audio.format), data: part.input_audio.data }]
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.image_url.url)
    return match ? [{ type: 'image', mimeType: match[1]!, data: match[2]! }] : [{ type: 'text', text: `[image: ${part.image_url.url}]` }]
  })
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text || '{}')
  } catch {
    return text
  }
}

/** Tool results that report a failure start with one of these (runtime wording). */
const FAILED = /^(Error|Blocked|Interrupted)\b/

export function replayUpdates(messages: readonly ChatMessage[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = []
  const ids = new Map<string, string>()
  const planCalls = new Map<string, ToolCall>()
  let lastPlan = '[]'
  messages.forEach((message, index) => {
    if (message.role === 'user') {
      for (const content of blocks(message.content)) updates.push({ sessionUpdate: 'user_message_chunk', content, messageId: `m${index}` })
    } else if (message.role === 'assistant') {
      if (message.reasoning) updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: message.reasoning } })
      for (const content of blocks(message.content)) updates.push({ sessionUpdate: 'agent_message_chunk', content, messageId: `m${index}` })
      for (const call of message.toolCalls ?? []) {
        const toolCallId = `h${index}-${call.id}`
        ids.set(call.id, toolCallId)
        if (call.name === PLAN_TOOL) planCalls.set(call.id, call)
        const input = parseArgs(call.arguments)
        const locations = toolLocations(call.name, input, cwd)
        updates.push({
          sessionUpdate: 'tool_call',
          toolCallId,
          title: toolTitle(call.name, input),
          name: call.name,
          kind: toolKind(call.name),
          status: 'in_progress',
          rawInput: input,
          ...(locations.length ? { locations } : {}),
        })
      }
    } else if (message.role === 'tool' && message.toolCallId) {
      const toolCallId = ids.get(message.toolCallId)
      if (!toolCallId) return
      ids.delete(message.toolCallId)
      const text = blocks(message.content).map((b) => (b.type === 'text' ? b.text : '')).join('\n')
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId, status: FAILED.test(text) ? 'failed' : 'completed', content: [textContent(text)] })
      const planCall = planCalls.get(message.toolCallId)
      const plan = planCall && planOfCall(planCall.arguments, text)
      // As it went live: only a list that changed is shown.
      if (plan && JSON.stringify(plan) !== lastPlan) {
        lastPlan = JSON.stringify(plan)
        updates.push({ sessionUpdate: 'plan', entries: plan })
      }
    }
  })
  // Calls whose results were never stored (a crash mid-call) end as failed, not spinning forever.
  for (const toolCallId of ids.values()) updates.push({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed', content: [textContent('Interrupted: no result was stored.')] })
  return updates
}
