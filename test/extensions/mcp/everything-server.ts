// The reference MCP server `@modelcontextprotocol/server-everything` (a devDependency) for tests:
// its stdio command, and its Streamable HTTP or legacy SSE mode as a child process on a loopback
// port chosen free just before (the server reads PORT; it cannot report a port 0 choice).

import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)
export const EVERYTHING_BIN = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js')

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface EverythingHttp {
  port: number
  /** `/mcp` (Streamable HTTP) or `/sse` (legacy). */
  url: string
  child: ChildProcess
  output(): string
  kill(): Promise<void>
}

/** Starts `server-everything streamableHttp|sse` on `port` and waits until it listens (bounded). */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse', port?: number): Promise<EverythingHttp> {
  const chosen = port ?? (await freePort())
  const child = spawn(process.execPath, [EVERYTHING_BIN, mode], { env: { ...process.env, PORT: String(chosen) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything ${mode} did not start: ${output}`)), 20_000)
    const check = () => {
      if (/listening on port|running on port/i.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', check)
    child.stderr!.on('data', check)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server-everything ${mode} exited (${code}): ${output}`))
    })
  })
  return {
    port: chosen,
    url: `http://127.0.0.1:${chosen}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    child,
    output: () => output,
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}
