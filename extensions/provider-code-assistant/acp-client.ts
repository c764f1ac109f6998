// The ACP-shim variant: each call starts the configured agent process (e.g. `copilot --acp
// --stdio`), opens a session, sends the flattened conversation as one prompt, streams the agent's
// message and thought chunks, and turns `<tool_call>` blocks into tool calls. The process is always
// ended when the call ends; abort sends session/cancel first. What the agent answers (message and
// thought chunks together, and each JSON-RPC line) is capped like every provider's answer
// (MAX_ANSWER_BYTES, AGENT_API_MAX_ANSWER_MB): past it the call fails in one line and the process ends.

import { AgentError, AnswerBudget, callProvider, MAX_ANSWER_BYTES, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type RetryPolicy } from 'agent/sdk'
import { AcpPeer, AcpProcessError } from './acp-rpc.ts'
import { buildPrompt, parseAnswer, VisibleText } from './acp-prompt.ts'

export interface AcpClientOptions {
  model: string
  command: string
  args: string[]
  cwd: string
  timeoutMs: number
  retry?: RetryPolicy
  /** The cap on one answer (default MAX_ANSWER_BYTES): what the chunks add up to, and one JSON-RPC line. */
  maxAnswerBytes?: number
}

const estimate = (chars: number) => Math.max(1, Math.ceil(chars / 4))

export class AcpClient implements ModelClient {
  readonly provider = 'copilot-acp'
  readonly model: string

  constructor(private readonly options: AcpClientOptions) {
    this.model = options.model
  }

  private get label(): string {
    return `acp:${[this.options.command, ...this.options.args].join(' ')}`
  }

  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const prompt = buildPrompt(request)
    return callProvider(
      { provider: this.provider, baseUrl: this.label, timeoutMs: this.options.timeoutMs, signal: options.signal, ...this.options.retry },
      async (attempt) => {
        // The agent process inherits the environment: it authenticates itself (its own login or token).
        const limit = this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES
        const peer = new AcpPeer(this.options.command, this.options.args, { cwd: this.options.cwd, maxLineBytes: limit })
        // Counted before a chunk is kept or shown; past the cap the peer fails the prompt and ends the process.
        const budget = new AnswerBudget(limit)
        const visible = new VisibleText()
        let answer = ''
        let reasoning = ''
        let sessionId: string | undefined
        const onAbort = () => {
          if (sessionId) peer.notify('session/cancel', { sessionId })
          setTimeout(() => peer.close(), 200).unref()
        }
        attempt.signal.addEventListener('abort', onAbort, { once: true })
        peer.onNotification = (method, params) => {
          if (method !== 'session/update') return
          const update = params?.update ?? {}
          const chunk = update.content?.type === 'text' ? String(update.content.text ?? '') : ''
          if (!chunk) return
          if (update.sessionUpdate === 'agent_message_chunk') {
            budget.grow(chunk.length)
            answer += chunk
            const shown = visible.push(chunk)
            if (shown && options.onDelta) {
              attempt.markDelivered()
              options.onDelta({ content: shown })
            }
          } else if (update.sessionUpdate === 'agent_thought_chunk') {
            budget.grow(chunk.length)
            reasoning += chunk
            attempt.markDelivered()
            options.onDelta?.({ reasoning: chunk })
          }
        }
        peer.onRequest = (method) => {
          // The agent's own tools stay off: the runtime runs tools, so permission requests are declined.
          if (method === 'session/request_permission') return { outcome: { outcome: 'cancelled' } }
          throw Object.assign(new Error(`${method} is not offered by this client`), { rpcCode: -32601 })
        }
        try {
          await peer.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } })
          const session = await peer.request('session/new', { cwd: this.options.cwd, mcpServers: [] })
          sessionId = String(session?.sessionId ?? '')
          const result = await peer.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: prompt }] })
          if (attempt.signal.aborted) throw attempt.signal.reason
          const { content, toolCalls } = parseAnswer(answer)
          const inputTokens = estimate(prompt.length)
          const outputTokens = estimate(answer.length + reasoning.length)
          return { content: content === '' && toolCalls.length ? null : content, toolCalls, reasoning: reasoning || undefined, usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }, finishReason: toolCalls.length ? 'tool_calls' : String(result?.stopReason ?? 'end_turn') }
        } catch (error) {
          if (attempt.signal.aborted) throw error
          if (error instanceof AcpProcessError) {
            const hint = error.code === 'ENOENT' ? ' (set AGENT_COPILOT_ACP_COMMAND or COPILOT_CLI_PATH)' : ''
            throw new AgentError('E_PROVIDER', `${this.provider}: ${error.message}${hint}`, { cause: error })
          }
          throw error
        } finally {
          attempt.signal.removeEventListener('abort', onAbort)
          peer.close()
        }
      },
    )
  }
}
