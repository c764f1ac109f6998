// Secrets never reach the model or the store through a run: every tool result, every stored message
// and every model request passes through here, in the runtime itself (not a hook tap that could be
// unloaded or reordered). The secrets are the ones settings know (Settings.secretEntries).

import { knownSecretsRedactor, redactDeep, secretMatcher, type ChatMessage, type ExtensionApi, type ModelRequest, type SecretStream } from 'agent/sdk'

export interface RunRedaction {
  /** Text with every known secret replaced by `[REDACTED:NAME]`; throws when the secrets cannot be read. */
  text(text: string): string
  /** The same for a tool's output, with .env looked at now: the tool may have just written it. */
  toolText(text: string): string
  message<M extends ChatMessage>(message: M): M
  /** The messages of a model request (the system prompt and whatever beforeModelRequest added included). */
  request(request: ModelRequest): ModelRequest
  /** For streamed deltas: holds back a tail that may be the start of a secret until it is decided. */
  stream(): SecretStream
}

/** Made once per run: .env is looked at as the run starts (it may have changed since the last). */
export function runRedaction(api: ExtensionApi<any>): RunRedaction {
  api.settings.secretEntries({ fresh: true })
  const redactor = () => knownSecretsRedactor(api.settings)
  return {
    text: (text) => redactor()(text),
    toolText: (text) => knownSecretsRedactor(api.settings, { fresh: true })(text),
    message: (message) => redactDeep(message, redactor()),
    request: (request) => {
      const messages = redactDeep(request.messages, redactor())
      return messages === request.messages ? request : { ...request, messages }
    },
    stream: () => secretMatcher(api.settings.secretEntries()).stream(),
  }
}
