// A small stand-in for the `runtime` service, used only while the real runtime extension is not in
// the tree: it streams from the OpenAI-compatible endpoint of OPENAI_BASE_URL, runs registered
// tools, keeps sessions in memory, and follows the RunRequest contract (history replaces the stored
// context; systemPrompt is layered after the agent's own and never stored).

import { randomUUID } from 'node:crypto'
import { defineExtension, type AgentRuntime, type ChatMessage, type RunRequest, type RunResult, type Usage } from '../../../sdk/index.ts'

export const AGENT_PROMPT = 'You are the agent (test runtime).'

export function inlineRuntime() {
  return defineExtension({
    name: 'test-runtime',
    setup(api) {
      const sessions = new Map<string, ChatMessage[]>()
      const runtime: AgentRuntime = {
        async run(request: RunRequest): Promise<RunResult> {
          const base = api.settings.env('OPENAI_BASE_URL')!
          const sessionId = request.sessionId ?? `sess_${randomUUID()}`
          const context = request.history ?? sessions.get(sessionId) ?? []
          const system = [AGENT_PROMPT, request.systemPrompt].filter(Boolean).join('\n\n')
          const user: ChatMessage = { role: 'user', content: request.input }
          const turn: any[] = []
          const usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
          let answer = ''
          let apiCalls = 0
          let exitReason: RunResult['exitReason'] = 'completed'
          try {
            for (let i = 0; i < 5; i++) {
              apiCalls++
              const res = await fetch(`${base}/chat/completions`, {
                method: 'POST',
                signal: request.signal,
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({
                  model: 'scripted-model',
                  stream: true,
                  messages: [{ role: 'system', content: system }, ...context, user, ...turn],
                  tools: api.tools.list().map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
                }),
              })
              if (!res.ok) throw new Error(`model answered ${res.status}: ${await res.text()}`)
              let text = ''
              const calls: Array<{ id: string; name: string; arguments: string }> = []
              let buffer = ''
              for await (const chunk of res.body as any as AsyncIterable<Uint8Array>) {
                buffer += Buffer.from(chunk).toString('utf8')
                let cut: number
                while ((cut = buffer.indexOf('\n\n')) >= 0) {
                  const line = buffer.slice(0, cut).replace(/^data: /, '')
                  buffer = buffer.slice(cut + 2)
                  if (line === '[DONE]') continue
                  const data = JSON.parse(line)
                  if (data.usage) {
                    usage.inputTokens += data.usage.prompt_tokens
                    usage.outputTokens += data.usage.completion_tokens
                    usage.totalTokens += data.usage.total_tokens
                  }
                  const delta = data.choices?.[0]?.delta
                  if (delta?.content) {
                    text += delta.content
                    request.onEvent?.({ type: 'delta', text: delta.content })
                  }
                  for (const call of delta?.tool_calls ?? []) calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments })
                }
              }
              answer = text
              if (calls.length === 0) break
              turn.push({ role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) })
              for (const call of calls) {
                const input = JSON.parse(call.arguments || '{}')
                request.onEvent?.({ type: 'tool.start', callId: call.id, name: call.name, input })
                const tool = api.tools.get(call.name)
                let result: unknown = `unknown tool ${call.name}`
                let ok = false
                if (tool) {
                  result = await tool.execute({
                    input,
                    callId: call.id,
                    signal: request.signal ?? new AbortController().signal,
                    session: { id: sessionId, cwd: '.', progress: (t) => request.onEvent?.({ type: 'tool.progress', callId: call.id, name: call.name, text: t }) },
                  })
                  ok = true
                }
                const content = typeof result === 'string' ? result : JSON.stringify(result)
                request.onEvent?.({ type: 'tool.end', callId: call.id, name: call.name, ok, resultBytes: content.length })
                turn.push({ role: 'tool', tool_call_id: call.id, content })
              }
            }
          } catch (error) {
            if (!request.signal?.aborted) throw error
            exitReason = 'interrupted'
          }
          if (request.persist !== false) sessions.set(sessionId, [...context, user, { role: 'assistant', content: answer }])
          return { sessionId, answer, exitReason, usage, apiCalls, model: 'scripted-model', provider: 'custom', toolTrace: [] }
        },
      }
      api.services.provide('runtime', runtime)
    },
  })
}
