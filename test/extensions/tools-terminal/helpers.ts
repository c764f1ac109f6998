// Shared by the terminal tests: a kernel with the terminal toolset, and a tool session.
import type { TestContext } from 'node:test'
import type { ToolDefinition, ToolSession } from 'agent/sdk'
import { createTestKernel, type TestKernelOptions } from 'agent/sdk/testing'
import { tempDir as testTempDir } from '../../helpers/temp.ts'

/** A temporary working directory, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'agent-term-'): string {
  return testTempDir(t, prefix)
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
