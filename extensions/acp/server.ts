// `agent acp`: the agent as an ACP agent over stdio (official SDK, stable v1 methods): initialize,
// session/new|load|resume|list|close|prompt|cancel and session/set_config_option (model). Serves
// until the editor closes stdin; every failure is a JSON-RPC error and never ends the process.

import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import {
  AgentError,
  errorMessage,
  linkAbort,
  RUNTIME_SERVICE,
  SESSIONS_SERVICE,
  type CliContext,
  type Logger,
  type RuntimeService,
  type SessionStore,
} from 'agent/sdk'
import type { AgentContext, AgentRequestContext, ClientCapabilities, InitializeResponse } from '@agentclientprotocol/sdk/unstable'
import { AcpConversation } from './conversation.ts'
import { diffGuard } from './diff-guard.ts'
import { editorIo } from './editor-io.ts'
import { AcpFailure, badParams, toRequestError, unknownSession, wrongTime } from './errors.ts'
import { addUsage, LiveSessions, newSessionId, type LiveSession } from './live-sessions.ts'
import { forkSession } from './fork.ts'
import { listSessions } from './session-list.ts'
import { attachMcpServers } from './mcp-servers.ts'
import { ModelOptions } from './model-option.ts'
import { modeState, setMode } from './modes.ts'
import { promptInput } from './prompt-input.ts'
import { replayUpdates } from './replay.ts'
import { availableCommands, runSlash, slashOf } from './slash.ts'
import { protocolStdio } from './stdio.ts'
import { runTurn, UpdateQueue } from './turn.ts'

export interface ServeOptions {
  /** The agent's version, for agentInfo. */
  version: string
  /** `--provider` / `--model`: the default model of every session of this server. */
  provider?: string
  model?: string
  log: Logger
}

/** How long closing waits for running turns to answer `cancelled`. */
const CLOSE_WAIT_MS = 5_000

function checkCwd(cwd: unknown): string {
  if (typeof cwd !== 'string' || !cwd) throw badParams('cwd is required (an absolute path)')
  if (!isAbsolute(cwd)) throw badParams(`cwd must be an absolute path (got "${cwd}")`)
  let isDirectory = false
  try {
    isDirectory = statSync(cwd).isDirectory()
  } catch {
    throw badParams(`cwd "${cwd}" does not exist`)
  }
  if (!isDirectory) throw badParams(`cwd "${cwd}" is not a directory`)
  return cwd
}

export function initializeResponse(requested: number, latest: number, version: string): InitializeResponse {
  return {
    // The client's version when we speak it, else the newest we do (the client then decides).
    protocolVersion: Number.isInteger(requested) && requested >= 1 && requested <= latest ? requested : latest,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    },
    // Credentials come from the agent's own config.yaml and .env.
    authMethods: [],
    agentInfo: { name: 'agent', title: 'agent', version },
  }
}

/** Serves one editor connection on stdin/stdout until stdin closes or the process is interrupted. */
export async function serveAcp(ctx: CliContext, options: ServeOptions): Promise<void> {
  const { log } = options
  const stdio = protocolStdio(process.stdin, ctx.protocolOut)
  try {
    // `chat` mode: MCP servers and plugins come up as for an interactive chat. The editor's
    // initialize is answered meanwhile; every other request waits for it.
    const ready = ctx.start('chat')
    ready.catch((error: unknown) => log.error(`starting the agent failed: ${errorMessage(error)}`))
    const acp = await import('@agentclientprotocol/sdk/unstable')
    const runtime = () => ctx.services.get<RuntimeService>(RUNTIME_SERVICE)
    const store = () => {
      const sessions = ctx.services.get<SessionStore>(SESSIONS_SERVICE)
      if (!sessions) throw new AgentError('E_STATE', 'sessions are not available (the sessions extension is not loaded)')
      return sessions
    }
    const live = new LiveSessions()
    /** What the editor offers (fs, terminal), from its initialize. */
    let clientCapabilities: ClientCapabilities | undefined
    const models = new ModelOptions(ctx.services, { provider: options.provider, model: options.model }, log, ctx.settings)
    const secrets = () => ctx.settings.secretValues()
    const diffs = diffGuard(ctx.settings)

    /** Runs a handler; whatever it throws becomes a one-line, redacted JSON-RPC error. */
    const guarded =
      <P, R>(method: string, handler: (c: AgentRequestContext<P>) => Promise<R> | R) =>
      async (c: AgentRequestContext<P>): Promise<R> => {
        try {
          if (method !== 'initialize') await ready
          return await handler(c)
        } catch (error) {
          const failure = toRequestError(acp.RequestError, error, secrets())
          if (!(error instanceof AcpFailure)) log.warn(`${method} failed: ${failure.message}`)
          throw failure
        }
      }

    const sessionOf = (id: string): LiveSession => {
      const session = live.get(id)
      if (!session) throw unknownSession(id)
      return session
    }

    /** What session/new, load and resume answer besides the id: the model option and the modes (the editor's MCP servers connected first). */
    const sessionState = async (session: LiveSession, client: AgentContext, mcpServers: Parameters<typeof attachMcpServers>[1]) => {
      await attachMcpServers(session, mcpServers, { services: ctx.services, registered: (name) => ctx.tools.get(name) !== undefined, log })
      // After the answer, so the editor knows the session the update is about.
      setTimeout(() => void client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'available_commands_update', availableCommands: availableCommands(ctx.commands.list()) } }).catch(() => undefined), 0)
      return { configOptions: await models.options(session, client), modes: modeState(session, ctx.settings) }
    }

    /** The answer to session/new and fork: a session that cannot be set up is not kept. */
    const opened = async (session: LiveSession, client: AgentContext, mcpServers: Parameters<typeof attachMcpServers>[1]) => {
      try {
        return { sessionId: session.id, ...(await sessionState(session, client, mcpServers)) }
      } catch (error) {
        live.close(session.id)
        throw error
      }
    }

    /** After a turn: how full the context is and what the session cost so far. */
    const usageUpdate = async (session: LiveSession, updates: UpdateQueue) => {
      const size = await models.contextWindow(session)
      const cost = session.usage.costUsd > 0 ? { cost: { amount: session.usage.costUsd, currency: 'USD' } } : {}
      updates.send({ sessionUpdate: 'usage_update', used: session.usage.contextTokens, size, ...cost })
    }

    const openStored = async (sessionId: string, cwd: string) => {
      const running = live.get(sessionId)
      if (running?.turn) throw wrongTime(`session "${sessionId}" is answering a prompt; cancel it first`)
      const found = await store().get(sessionId)
      if (!found) {
        if (running) return { session: running, messages: [] }
        throw unknownSession(sessionId)
      }
      // A compressed conversation goes on in its newest continuation.
      const tip = found.endReason === 'compression' ? ((await store().tip(found.id)) ?? found) : found
      const messages = await store().messages(tip.id)
      const session = live.open({ id: sessionId, cwd, stored: true })
      if (!running) models.restore(session, found)
      return { session, messages }
    }

    const app = acp
      .agent({ name: 'agent' })
      .onRequest(
        'initialize',
        guarded('initialize', ({ params }) => {
          clientCapabilities = params.clientCapabilities
          return initializeResponse(params.protocolVersion, acp.PROTOCOL_VERSION, options.version)
        }),
      )
      .onRequest(
        'session/new',
        guarded('session/new', async ({ params, client }) => {
          const cwd = checkCwd(params.cwd)
          return opened(live.open({ id: newSessionId(), cwd, stored: false }), client, params.mcpServers)
        }),
      )
      .onRequest(
        'session/load',
        guarded('session/load', async ({ params, client }) => {
          const cwd = checkCwd(params.cwd)
          const { session, messages } = await openStored(params.sessionId, cwd)
          const updates = new UpdateQueue(client, session.id, log)
          for (const update of replayUpdates(messages, cwd)) updates.send(update)
          await updates.flush()
          return sessionState(session, client, params.mcpServers)
        }),
      )
      .onRequest(
        'session/resume',
        guarded('session/resume', async ({ params, client }) => {
          const cwd = checkCwd(params.cwd)
          const { session } = await openStored(params.sessionId, cwd)
          return sessionState(session, client, params.mcpServers)
        }),
      )
      .onRequest(
        'session/list',
        guarded('session/list', ({ params }) => listSessions(store(), params.cwd ?? undefined, params.cursor)),
      )
      .onRequest(
        'session/close',
        guarded('session/close', ({ params }) => {
          sessionOf(params.sessionId)
          live.close(params.sessionId)
          return {}
        }),
      )
      .onRequest(
        'session/fork',
        guarded('session/fork', async ({ params, client }) => {
          const session = await forkSession({ store: store(), live, models }, params.sessionId, checkCwd(params.cwd))
          return opened(session, client, params.mcpServers)
        }),
      )
      .onRequest(
        'session/delete',
        guarded('session/delete', async ({ params }) => {
          const session = live.get(params.sessionId)
          if (session?.turn) throw wrongTime(`session "${params.sessionId}" is answering a prompt; cancel it first`)
          live.close(params.sessionId)
          // Deleting what is not there is done (the SDK's clients treat -32002 as success too).
          await store().delete(params.sessionId)
          return {}
        }),
      )
      .onRequest(
        'session/set_mode',
        guarded('session/set_mode', ({ params }) => {
          setMode(sessionOf(params.sessionId), params.modeId)
          return {}
        }),
      )
      .onRequest(
        'session/set_config_option',
        guarded('session/set_config_option', async ({ params }) => {
          const session = sessionOf(params.sessionId)
          const configOptions = await models.set(session, params.configId, params.value)
          // Kept with the session, so session/load brings it back (a new session stores it with its first prompt).
          if (session.stored) await store().update(session.id, { provider: session.provider, model: session.model })
          return { configOptions }
        }),
      )
      .onRequest(
        'session/prompt',
        guarded('session/prompt', async ({ params, client, signal }) => {
          const session = sessionOf(params.sessionId)
          if (session.turn) throw wrongTime('a prompt is already running in this session; cancel it first')
          const agentRuntime = runtime()
          if (!agentRuntime) throw new AgentError('E_STATE', 'the agent runtime is not available (the runtime extension is not loaded)')
          const input = promptInput(params.prompt)
          const slash = typeof input === 'string' ? slashOf(ctx.commands.list(), input) : undefined
          if (slash) {
            const updates = new UpdateQueue(client, session.id, log)
            await runSlash(slash, new AcpConversation(ctx, live, session, () => models.selection(session)), updates, (error) => toRequestError(acp.RequestError, error, secrets()).message)
            return { stopReason: 'end_turn' as const }
          }
          const controller = new AbortController()
          // The request itself may be cancelled ($/cancel_request) or the connection may close.
          const link = linkAbort(signal)
          link.signal.addEventListener('abort', () => live.cancel(session.id, 'the editor cancelled the request'), { once: true })
          let settle: (value: unknown) => void = () => undefined
          session.turn = { controller, cancelled: false, settled: new Promise((resolve) => (settle = resolve)) }
          const turn = session.turn
          try {
            if (!session.stored) {
              await store().create({ id: session.id, source: 'acp', cwd: session.cwd, ...(session.model ? { provider: session.provider, model: session.model } : {}) })
              session.stored = true
            }
            const updates = new UpdateQueue(client, session.id, log)
            const switches = [...session.tools]
            const { stopReason } = await runTurn({
              runtime: agentRuntime,
              client,
              log,
              sessionId: session.id,
              cwd: session.cwd,
              input,
              turnNumber: ++session.turns,
              ...models.selection(session),
              signal: controller.signal,
              cancelled: () => turn.cancelled,
              updates,
              ...(session.mode ? { approvalMode: session.mode } : {}),
              editorIo: (onTerminal) => editorIo(client, session.id, clientCapabilities, onTerminal),
              runTools: session.mcp?.tools ?? [],
              enableTools: switches.filter(([, on]) => on).map(([name]) => name),
              disableTools: switches.filter(([, on]) => !on).map(([name]) => name),
              onUsage: (usage) => addUsage(session, usage),
              diffs,
            })
            await usageUpdate(session, updates)
            await updates.flush()
            return { stopReason }
          } finally {
            link.dispose()
            session.turn = undefined
            settle(undefined)
          }
        }),
      )
      .onNotification('session/cancel', ({ params }) => {
        live.cancel(params.sessionId, 'the editor cancelled the turn')
      })

    const connection = app.connect(acp.ndJsonStream(stdio.output, stdio.input))
    log.info('agent acp: serving ACP on stdio')
    await Promise.race([
      connection.closed,
      stdio.ended,
      new Promise<void>((resolve) => (ctx.signal.aborted ? resolve() : ctx.signal.addEventListener('abort', () => resolve(), { once: true }))),
    ])
    await live.cancelAll('the editor closed the connection', CLOSE_WAIT_MS)
    await live.closeServers()
    connection.close()
    await connection.closed.catch((error: unknown) => log.debug(`connection closed: ${errorMessage(error)}`))
    // An editor that hangs up while the agent is still starting (stdin closed in its first moments):
    // the start finishes first (bounded), else what it starts after the CLI's shutdown (the extension
    // watcher) keeps the process alive.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([ready.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))])
    clearTimeout(timer)
  } finally {
    stdio.release()
  }
}
