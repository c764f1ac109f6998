// Reading what a scripted model was asked: tests that drive a gateway against startScriptedModel
// check which prompts reached the model and answer by the last user message.

import type { ScriptedModelServer } from './scripted-model.ts'

/** The last user message of a chat-completions request body (content parts as JSON). */
export function lastUser(body: any): string {
  const users = (body?.messages ?? []).filter((m: any) => m.role === 'user')
  const content = users.at(-1)?.content
  return typeof content === 'string' ? content : JSON.stringify(content ?? '')
}

/** The prompts (last user message of each chat-completions request) the model received, in order. */
export function modelPrompts(model: ScriptedModelServer): string[] {
  return model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => lastUser(r.body))
}
