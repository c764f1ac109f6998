// A kernel with approvals, the delivery service, the terminal tool and a recording chat adapter
// (platform `fakechat`), plus helpers to raise a tool call (terminal or any other) through
// beforeToolCall and to type a slash command in the fake chat.
import { defineExtension, resolveSlash, type MessageSource, type SlashContext, type ToolCallEvent, type ToolDefinition, type ToolSession } from 'agent/sdk'
import { createTestKernel, type TestKernelOptions } from 'agent/sdk/testing'

export interface Sent {
  chatId: string
  text: string
}

export async function approvalsKernel(options: TestKernelOptions & { builtins?: string[] } = {}) {
  const sent: Sent[] = []
  const waiters: Array<() => void> = []
  const fakeChat = defineExtension({
    name: 'fake-chat',
    setup(api) {
      api.adapters.register({
        name: 'fakechat',
        enabled: () => true,
        start: async () => undefined,
        stop: async () => undefined,
        send: async (chatId: string, text: string) => {
          sent.push({ chatId, text })
          for (const w of waiters.splice(0)) w()
        },
      })
    },
  })
  const test = await createTestKernel({ ...options, builtins: ['approvals', 'delivery', 'tools-terminal', ...(options.builtins ?? [])], extensions: [fakeChat, ...(options.extensions ?? [])] })
  const { kernel } = test

  /** beforeToolCall, then the tool itself when not blocked — what the runtime does. */
  async function runTool(name: string, input: Record<string, unknown>, session: ToolSession) {
    const tool = kernel.registries.tools.get(name) as ToolDefinition
    const event: ToolCallEvent = { tool: name, toolset: tool.toolset ?? name, callId: `c${Math.random()}`, input, session, modifiesFiles: Boolean(tool.modifiesFiles) }
    const verdict = await kernel.hooks.beforeToolCall.promise(event)
    if (verdict?.block) return { blocked: verdict.reason }
    return { result: (await tool.execute({ input: event.input, callId: event.callId, signal: new AbortController().signal, session })) as any }
  }
  const runTerminal = (command: string, session: ToolSession) => runTool('terminal', { command }, session)
  async function slash(text: string, source: MessageSource, sessionId?: string): Promise<string[]> {
    const replies: string[] = []
    const resolved = resolveSlash(kernel.registries.commands.list(), text, 'gateway')
    if (!resolved || 'unknown' in resolved) throw new Error(`not a gateway command: ${text}`)
    const ctx: SlashContext = { args: resolved.args, invokedAs: resolved.invokedAs, surface: 'gateway', reply: (t) => void replies.push(t), source, chat: { sessionId } as never }
    await resolved.command.slash!(ctx)
    return replies
  }
  /** Resolves when the fake chat has received `count` messages. */
  async function messages(count: number): Promise<Sent[]> {
    for (let i = 0; i < 200 && sent.length < count; i++) await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 25) })
    return sent
  }
  return { ...test, sent, runTool, runTerminal, slash, messages }
}
