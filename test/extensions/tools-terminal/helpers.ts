// Shared by the terminal tests: a kernel with the terminal toolset, and a tool session.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolDefinition, ToolSession } from 'agent/sdk'
import { createTestKernel, type TestKernelOptions } from 'agent/sdk/testing'

export function tempDir(prefix = 'agent-term-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export async function terminalKernel(options: TestKernelOptions = {}) {
  const test = await createTestKernel({ builtins: ['tools-terminal'], ...options })
  const tool = (name: string) => {
    const found = test.kernel.registries.tools.get(name) as ToolDefinition | undefined
    if (!found) throw new Error(`tool ${name} not registered`)
    return found
  }
  const call = async (name: string, input: unknown, session: ToolSession) =>
    (await tool(name).execute({ input, callId: `call_${Math.random().toString(36).slice(2)}`, signal: new AbortController().signal, session })) as any
  return { ...test, tool, call }
}

export function session(cwd: string, extra: Partial<ToolSession> = {}): ToolSession {
  return { id: `s-${Math.random().toString(36).slice(2)}`, cwd, ...extra }
}
