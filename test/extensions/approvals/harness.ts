// A kernel with approvals, the delivery service, the terminal tool and a recording chat adapter
// (platform `fakechat`), plus helpers to raise a terminal call through beforeToolCall and to type a
// slash command in the fake chat.
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

  const toolCall = (command: string, session: ToolSession): ToolCallEvent => ({ tool: 'terminal', toolset: 'terminal', callId: `c${Math.random()}`, input: { command }, session, modifiesFiles: true })
  /** beforeToolCall, then the tool itself when not blocked — what the runtime does. */
  async function runTerminal(command: string, session: ToolSession) {
    const event = toolCall(command, session)
    const verdict = await kernel.hooks.beforeToolCall.promise(event)
    if (verdict?.block) return { blocked: verdict.reason }
    const tool = kernel.registries.tools.get('terminal') as ToolDefinition
    return { result: (await tool.execute({ input: event.input, callId: event.callId, signal: new AbortController().signal, session })) as any }
  }
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
  return { ...test, sent, runTerminal, slash, messages }
}
