// Drives the real `agent acp` bin as an editor would: a child process spoken to with the ACP SDK's
// client-side connection over its stdio. Every stdout line is kept raw (to check that nothing but
// protocol is printed), session updates are collected per session, and permission requests are
// answered by a test-chosen function. Every wait is bounded.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as acp from '@agentclientprotocol/sdk'
import { hermeticEnv } from 'agent/sdk/testing'
import { AGENT_BIN } from '../../helpers/agent-process.ts'

export interface AcpProcess {
  child: ChildProcessWithoutNullStreams
  agent: acp.ClientContext
  connection: acp.ClientConnection
  /** Raw stdout lines so far. */
  lines(): string[]
  stderr(): string
  /** Every session/update received, in order. */
  updates: acp.SessionNotification[]
  updatesOf(sessionId: string): acp.SessionUpdate[]
  /** Permission requests received, in order. */
  permissions: acp.RequestPermissionRequest[]
  /** How permission requests are answered (default: reject). */
  answerPermission: (request: acp.RequestPermissionRequest, signal: AbortSignal) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>
  /** The editor's fs/* and terminal/* answers (unset: the request fails), and the requests received. */
  editor: Partial<Record<EditorMethod, (params: any) => unknown>>
  editorRequests: Array<{ method: EditorMethod; params: any }>
  /** Resolves when an update matching `predicate` has arrived (rejects after `timeoutMs`). */
  waitForUpdate(predicate: (n: acp.SessionNotification) => boolean, timeoutMs?: number): Promise<acp.SessionNotification>
  /** Resolves with the exit code (rejects after `timeoutMs`). */
  exited(timeoutMs?: number): Promise<number | null>
  kill(): Promise<void>
}

const EDITOR_METHODS = ['fs/read_text_file', 'fs/write_text_file', 'terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/kill', 'terminal/release'] as const
export type EditorMethod = (typeof EDITOR_METHODS)[number]

export interface StartOptions {
  home: string
  cwd: string
  env?: Record<string, string | undefined>
  args?: string[]
}

export function startAcp(options: StartOptions): AcpProcess {
  const child = spawn(process.execPath, [AGENT_BIN, 'acp', ...(options.args ?? [])], {
    env: hermeticEnv({ AGENT_LOG_LEVEL: 'info', ...options.env }, options.home),
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  let pending = ''
  const lines: string[] = []
  child.stderr.on('data', (d) => (stderr += d))
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))

  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8')
        const parts = pending.split('\n')
        pending = parts.pop() ?? ''
        lines.push(...parts.filter((l) => l.length > 0))
        controller.enqueue(new Uint8Array(chunk))
      })
      child.stdout.on('end', () => {
        if (pending) lines.push(pending)
        try {
          controller.close()
        } catch {
          // already closed
        }
      })
    },
  })
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()))),
    close: () => void child.stdin.end(),
  })

  const updates: acp.SessionNotification[] = []
  const waiters = new Set<() => void>()
  const permissions: acp.RequestPermissionRequest[] = []
  const proc = {} as AcpProcess
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params)
      for (const w of [...waiters]) w()
    })
    .onRequest('session/request_permission', async ({ params, signal }) => {
      permissions.push(params)
      return proc.answerPermission(params, signal)
    })
  const editorRequests: AcpProcess['editorRequests'] = []
  for (const method of EDITOR_METHODS) {
    ;(app as any).onRequest(method, async ({ params }: { params: any }) => {
      editorRequests.push({ method, params })
      const handler = proc.editor[method]
      if (!handler) throw new acp.RequestError(-32601, `${method} is not offered`)
      return handler(params)
    })
  }
  const connection = app.connect(acp.ndJsonStream(output, input))

  Object.assign(proc, {
    child,
    agent: connection.agent,
    connection,
    lines: () => [...lines],
    stderr: () => stderr,
    updates,
    updatesOf: (sessionId: string) => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update),
    permissions,
    editor: {},
    editorRequests,
    answerPermission: () => ({ outcome: { outcome: 'selected', optionId: 'deny' } }),
    waitForUpdate(predicate: (n: acp.SessionNotification) => boolean, timeoutMs = 20_000) {
      return new Promise<acp.SessionNotification>((resolve, reject) => {
        const check = () => {
          const found = updates.find(predicate)
          if (!found) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching session update within ${timeoutMs} ms\nstderr: ${stderr}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    exited(timeoutMs = 20_000) {
      let timer: NodeJS.Timeout | undefined
      return Promise.race([
        exit.finally(() => clearTimeout(timer)),
        new Promise<number | null>((_, reject) => (timer = setTimeout(() => reject(new Error(`agent acp did not exit within ${timeoutMs} ms\nstderr: ${stderr}`)), timeoutMs))),
      ])
    },
    async kill() {
      connection.close()
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL')
        await exit
      }
    },
  } satisfies Partial<AcpProcess>)
  return proc
}

/** Text of the chunks of one kind, concatenated. */
export function chunkText(updates: readonly acp.SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
  return updates
    .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: typeof kind }> => u.sessionUpdate === kind)
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('')
}

export async function initialized(proc: AcpProcess, clientCapabilities: acp.ClientCapabilities = { fs: { readTextFile: false, writeTextFile: false }, terminal: false }): Promise<acp.InitializeResponse> {
  return proc.agent.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: 'test-editor', version: '1.0.0' } })
}

/** The environment that points `agent acp` at a scripted model, with a per-test API key. */
export function acpModelEnv(model: { url: string }, apiKey: string): Record<string, string> {
  return { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: apiKey, AGENT_MODEL: 'scripted-model' }
}

/** A temp project directory, resolved (the agent reports real paths, and macOS's tmpdir is a link). */
export function projectDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}
