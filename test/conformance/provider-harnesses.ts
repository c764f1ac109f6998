// One harness per provider extension (and per wire mode of it): how to start a loopback fake of its
// wire protocol, which environment points the provider at it, and how to read the requests the
// provider sent. providers.test.ts runs the same cases over every harness.

import type { RecordedRequest, ScriptedTurn } from 'agent/sdk/testing'
import { startFakeAcpAgent, startFakeMessagesApi, startFakeResponsesApi, startScriptedModel } from 'agent/sdk/testing'
import { join } from 'node:path'
import { tmpdir } from 'node:os'

export interface Fake {
  readonly url: string
  readonly requests: RecordedRequest[]
  enqueue(...turns: ScriptedTurn[]): void
  close(): Promise<void>
}

export interface WireView {
  lastUserText(body: any): string
  /** Ids the request's tool results point at, in order. */
  toolResultIds(body: any): string[]
  /** Ids of the tool calls in the request's assistant history, in order. */
  historyCallIds(body: any): string[]
  toolNames(body: any): string[]
  reasoningEffort(body: any): unknown
}

export interface Harness {
  name: string
  builtins: string[]
  /** HTTP faults (status codes, dropped connections, unreachable ports) apply. */
  http: boolean
  /** The provider reports reasoning text. */
  reasoning: boolean
  /** The reasoning effort travels on the wire (false for protocols without a control). */
  effort?: boolean
  /** Usage comes from the wire (not estimated). */
  exactUsage: boolean
  start(): Promise<{ fake: Fake; env: Record<string, string>; config?: Record<string, unknown> }>
  /** The environment that points the provider at an endpoint (for the unreachable-port case). */
  envFor?(url: string): Record<string, string>
  /** Requests that are model calls (not model lists or token exchanges). */
  isCall(request: RecordedRequest): boolean
  wire: WireView
}

const text = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: any) => p?.text ?? '').join('') : ''

export const chatCompletionsWire: WireView = {
  lastUserText: (body) => text([...(body?.messages ?? [])].reverse().find((m: any) => m.role === 'user')?.content),
  toolResultIds: (body) => (body?.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id),
  historyCallIds: (body) => (body?.messages ?? []).flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => c.id)),
  toolNames: (body) => (body?.tools ?? []).map((t: any) => t.function?.name),
  reasoningEffort: (body) => body?.reasoning_effort ?? body?.reasoning?.effort ?? body?.thinking?.type,
}

function compatHarness(name: string, envFor: (url: string) => Record<string, string>): Harness {
  return {
    name,
    builtins: ['provider-openai-compat', 'model-resolver'],
    http: true,
    reasoning: true,
    exactUsage: true,
    async start() {
      const fake = await startScriptedModel({ models: ['scripted-model', 'other-model'] })
      return { fake, env: envFor(fake.url) }
    },
    envFor,
    isCall: (r) => r.path.endsWith('/chat/completions'),
    wire: chatCompletionsWire,
  }
}

const blocks = (m: any): any[] => (Array.isArray(m?.content) ? m.content : typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : [])

export const messagesWire: WireView = {
  lastUserText: (body) => text([...(body?.messages ?? [])].reverse().find((m: any) => m.role === 'user' && blocks(m).some((b) => b.type === 'text'))?.content.filter?.((b: any) => b.type === 'text') ?? ''),
  toolResultIds: (body) => (body?.messages ?? []).flatMap((m: any) => blocks(m).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id)),
  historyCallIds: (body) => (body?.messages ?? []).flatMap((m: any) => blocks(m).filter((b) => b.type === 'tool_use').map((b) => b.id)),
  toolNames: (body) => (body?.tools ?? []).map((t: any) => t.name),
  reasoningEffort: (body) => body?.thinking?.budget_tokens,
}

/** A HOME with no local vendor credentials, so only the variables given are used. */
const EMPTY_HOME = join(tmpdir(), 'agent-conformance-no-home')

const nativeVendorEnv = (url: string) => ({ AGENT_INFERENCE_PROVIDER: 'claude', ANTHROPIC_API_KEY: 'sk-ant-api03-test-1234567890', ANTHROPIC_BASE_URL: url, HOME: EMPTY_HOME })

export const responsesWire: WireView = {
  lastUserText: (body) => text([...(body?.input ?? [])].reverse().find((i: any) => i.role === 'user')?.content),
  toolResultIds: (body) => (body?.input ?? []).filter((i: any) => i.type === 'function_call_output').map((i: any) => i.call_id),
  historyCallIds: (body) => (body?.input ?? []).filter((i: any) => i.type === 'function_call').map((i: any) => i.call_id),
  toolNames: (body) => (body?.tools ?? []).map((t: any) => t.name),
  reasoningEffort: (body) => body?.reasoning?.effort,
}

/** The ACP shim sends one text prompt: `### <section>` blocks (system, tools, user, assistant, tool result). */
const sections = (body: any): string[] => String(body?.prompt?.[0]?.text ?? '').split(/\n\n(?=### )/)
export const acpWire: WireView = {
  lastUserText: (body) => sections(body).filter((s) => s.startsWith('### user\n')).at(-1)?.slice('### user\n'.length) ?? '',
  toolResultIds: (body) => sections(body).flatMap((s) => /^### tool result \(id: (.*)\)/.exec(s)?.[1] ?? []),
  historyCallIds: (body) =>
    sections(body)
      .filter((s) => s.startsWith('### assistant'))
      .flatMap((s) => [...s.matchAll(/<tool_call>(.*?)<\/tool_call>/g)].map((m) => JSON.parse(m[1]!).id)),
  toolNames: (body) => [...(sections(body).find((s) => s.startsWith('### tools')) ?? '').matchAll(/^- ([\w.-]+): /gm)].map((m) => m[1]!),
  reasoningEffort: () => undefined,
}

const copilotBuiltins = ['provider-openai-compat', 'provider-code-assistant', 'model-resolver']
const noGhCli = { extensions: { 'provider-code-assistant': { gh_command: '' } } }
const copilotEnv = (model: string) => (url: string) => ({ AGENT_INFERENCE_PROVIDER: 'github-copilot', COPILOT_GITHUB_TOKEN: 'gho_testtoken1234567890', COPILOT_API_BASE_URL: url, AGENT_MODEL: model })

export const HARNESSES: Harness[] = [
  {
    name: 'code assistant: responses API (newest generation)',
    builtins: copilotBuiltins,
    http: true,
    reasoning: true,
    exactUsage: true,
    async start() {
      const fake = await startFakeResponsesApi({ models: ['gpt-5-fake'] })
      return { fake, env: copilotEnv('gpt-5-fake')(fake.url), config: noGhCli }
    },
    envFor: copilotEnv('gpt-5-fake'),
    isCall: (r) => r.path.endsWith('/responses'),
    wire: responsesWire,
  },
  {
    name: 'code assistant: chat completions (other models)',
    builtins: copilotBuiltins,
    http: true,
    reasoning: true,
    exactUsage: true,
    async start() {
      const fake = await startScriptedModel({ models: ['claude-sonnet-4'] })
      return { fake, env: copilotEnv('claude-sonnet-4')(fake.url), config: noGhCli }
    },
    envFor: copilotEnv('claude-sonnet-4'),
    isCall: (r) => r.path.endsWith('/chat/completions'),
    wire: chatCompletionsWire,
  },
  {
    name: 'code assistant: ACP shim (subprocess)',
    builtins: copilotBuiltins,
    http: false,
    reasoning: true,
    effort: false,
    exactUsage: false,
    async start() {
      const fake = await startFakeAcpAgent()
      const env = { AGENT_INFERENCE_PROVIDER: 'copilot-acp', AGENT_COPILOT_ACP_COMMAND: fake.command, AGENT_COPILOT_ACP_ARGS: fake.args.map((a) => `"${a}"`).join(' ') }
      return { fake: { ...fake, get requests() { return fake.requests }, url: fake.url }, env }
    },
    isCall: () => true,
    wire: acpWire,
  },
  {
    name: 'native vendor: messages API',
    builtins: ['provider-native-vendor', 'model-resolver'],
    http: true,
    reasoning: true,
    exactUsage: true,
    async start() {
      const fake = await startFakeMessagesApi()
      return { fake, env: nativeVendorEnv(fake.url) }
    },
    envFor: nativeVendorEnv,
    isCall: (r) => r.path === '/v1/messages',
    wire: messagesWire,
  },
  compatHarness('openai-compat: custom endpoint', (url) => ({ AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: url, AGENT_MODEL: 'scripted-model' })),
  compatHarness('openai-compat: aggregator', (url) => ({ AGENT_INFERENCE_PROVIDER: 'openrouter', OPENROUTER_API_KEY: 'sk-or-test-123456789', OPENROUTER_BASE_URL: url })),
  compatHarness('openai-compat: GLM-style by alias', (url) => ({ AGENT_INFERENCE_PROVIDER: 'glm', GLM_API_KEY: 'glm-test-key-123456', GLM_BASE_URL: url })),
]
