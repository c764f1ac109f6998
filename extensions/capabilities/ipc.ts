// The IPC endpoint frontends invoke commands through: `POST /ipc/<command>` on the `api` listener
// with a JSON object of arguments and `Authorization: Bearer <window token>`. Order: CORS (this
// endpoint answers preflights itself, for any origin: the decision is made on the call) → token
// (401) → origin → ACL (403 with the reason) → handler. Labels come only from the signed token;
// local vs remote only from the Origin header, which a page cannot set.

import { bearerToken, HttpError, parseJsonObject, readBody, redactSecrets, type EndpointDefinition, type FrontendInvocation, type HttpContext, type InvokeOrigin, type Logger } from 'agent/sdk'
import type { AclState } from './acl-state.ts'
import type { CommandHandler } from './builtin-commands.ts'
import type { VerifyResult } from './token.ts'

export const IPC_PATH = '/ipc/:command'

export interface IpcDeps {
  acl: AclState
  verify(token: string): VerifyResult
  /** Origins whose pages are local app content (exact `scheme://host:port`). */
  localOrigins(): readonly string[]
  handler(command: string): CommandHandler | undefined
  bodyLimit: number
  log: Logger
  secrets(): Iterable<string | undefined>
  signal: AbortSignal
}

const COMMAND = /^(plugin:[a-z0-9][a-z0-9-]*\|[a-z0-9_]+|[a-z][a-z0-9_]*)$/

/** Local if there is no Origin (a native shell) or it is a configured local origin; else remote. */
export function classifyOrigin(ctx: HttpContext, localOrigins: readonly string[]): InvokeOrigin {
  const origin = ctx.get('Origin')
  if (!origin) return { kind: 'local' }
  if (localOrigins.includes(origin.replace(/\/$/, ''))) return { kind: 'local' }
  // The Origin names scheme, host and port; a Referer of the same origin adds the page's path.
  const referer = ctx.get('Referer')
  if (referer) {
    try {
      if (new URL(referer).origin === origin) return { kind: 'remote', url: referer }
    } catch {
      // an unparsable Referer adds nothing
    }
  }
  return { kind: 'remote', url: origin === 'null' ? 'null' : `${origin}/` }
}

function cors(ctx: HttpContext): void {
  const origin = ctx.get('Origin')
  if (!origin) return
  ctx.set('Access-Control-Allow-Origin', origin)
  ctx.vary('Origin')
}

export function ipcEndpoints(deps: IpcDeps): EndpointDefinition[] {
  const preflight: EndpointDefinition = {
    listener: 'api',
    method: 'OPTIONS',
    path: IPC_PATH,
    auth: 'none',
    crossOrigin: 'self',
    handler(ctx) {
      cors(ctx)
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS')
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type')
      ctx.set('Access-Control-Max-Age', '600')
      // Chrome asks before a public page may reach a loopback address; capabilities decide later.
      if (ctx.get('Access-Control-Request-Private-Network') === 'true') ctx.set('Access-Control-Allow-Private-Network', 'true')
      ctx.status = 204
    },
  }

  const invoke: EndpointDefinition = {
    listener: 'api',
    method: 'POST',
    path: IPC_PATH,
    auth: 'none',
    crossOrigin: 'self',
    async handler(ctx) {
      cors(ctx)
      const command = String((ctx as unknown as { params?: Record<string, string> }).params?.command ?? '')
      const token = bearerToken(ctx)
      if (!token) throw new HttpError(401, 'A capability token is required (Authorization: Bearer <token from `agent capabilities token`)', { type: 'authentication_error', code: 'missing_token', headers: { 'WWW-Authenticate': 'Bearer' } })
      const verified = deps.verify(token)
      if (!verified.ok) throw new HttpError(401, verified.reason, { type: 'authentication_error', code: 'invalid_token', headers: { 'WWW-Authenticate': 'Bearer' } })
      if (!COMMAND.test(command)) throw new HttpError(400, `"${command.slice(0, 80)}" is not a command: use plugin:<namespace>|<command> or an app command name`, { code: 'invalid_command' })

      const origin = classifyOrigin(ctx, deps.localOrigins())
      const acl = await deps.acl.current()
      const decision = acl.check({ command, window: verified.window, webview: verified.webview, origin })
      if (!decision.allowed) {
        deps.log.info(`denied ${command} for window "${verified.window}" webview "${verified.webview}" (${origin.kind === 'local' ? 'local' : origin.url})`)
        throw new HttpError(403, decision.reason, { type: 'permission_error', code: 'command_denied' })
      }
      const handler = deps.handler(command)
      if (!handler) throw new HttpError(501, `${command} is allowed but this agent does not implement it`, { type: 'server_error', code: 'not_implemented' })

      const raw = await readBody(ctx, deps.bodyLimit)
      // Bounded: depth and member count are checked before parsing (sdk/json-intake.ts).
      const args = raw.length > 0 ? parseJsonObject(raw.toString('utf8'), {}, 'The arguments') : {}

      const aborter = new AbortController()
      // The response closing before it was written means the caller went away.
      const gone = () => {
        if (!ctx.res.writableFinished) aborter.abort()
      }
      const abort = () => aborter.abort()
      ctx.res.once('close', gone)
      deps.signal.addEventListener('abort', abort, { once: true })
      const call: FrontendInvocation = {
        command,
        args: args as Record<string, unknown>,
        window: verified.window,
        webview: verified.webview,
        origin,
        commandScope: decision.commandScope,
        globalScope: decision.globalScope,
        signal: aborter.signal,
      }
      try {
        const result = await handler(call)
        ctx.status = 200
        ctx.type = 'application/json'
        ctx.body = JSON.stringify(result === undefined ? null : result)
      } catch (error) {
        if (HttpError.isInstance(error)) throw error
        const message = redactSecrets((error as Error)?.message ?? String(error), deps.secrets())
        deps.log.warn(`${command} failed: ${message}`)
        throw new HttpError(500, `${command} failed: ${message}`, { type: 'server_error', code: 'command_failed' })
      } finally {
        ctx.res.off('close', gone)
        deps.signal.removeEventListener('abort', abort)
      }
    },
  }
  return [preflight, invoke]
}
