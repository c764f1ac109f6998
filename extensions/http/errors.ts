// Every error leaves a listener in the OpenAI envelope {error: {message, type, param, code}}, with
// secrets redacted; unexpected failures are 500 without internals.

import { HttpError, redactSecrets, type HttpContext, type Logger } from 'agent/sdk'

export type Secrets = () => Iterable<string | undefined>

/**
 * Writes the envelope. The message is redacted here, for every caller: it may echo what the client
 * sent (a path, an Origin) or what a handler threw, and either can hold a known secret.
 */
export function sendError(ctx: HttpContext, secrets: Secrets, status: number, message: string, type?: string, code?: string | null, param?: string | null): void {
  ctx.status = status
  ctx.type = 'application/json'
  ctx.body = { error: { message: redactSecrets(message, secrets()), type: type ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), param: param ?? null, code: code ?? null } }
}

const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE'])

/** The error is the client going away: its request never arrived whole and its connection is gone. */
function clientGone(ctx: HttpContext, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const abortShaped = (code !== undefined && ABORT_CODES.has(code)) || (error as Error | undefined)?.message === 'aborted'
  return abortShaped && !ctx.req.complete && (ctx.req.destroyed || ctx.req.socket?.destroyed === true)
}

/** Answers a request whose handling threw: its HttpError's status and headers, else a bare 500. */
export function answerError(ctx: HttpContext, error: unknown, log: Logger, secrets: Secrets): void {
  if (HttpError.isInstance(error)) {
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value)
    sendError(ctx, secrets, error.status, error.message, error.type, error.code, error.param)
    return
  }
  const line = `${ctx.method} ${ctx.path} failed: ${redactSecrets((error as Error)?.message ?? String(error), secrets())}`
  // A client that hangs up mid-request is no server error, and anyone can do it at will: at error
  // level it would let them flood the log.
  if (clientGone(ctx, error)) log.debug(line)
  else log.error(line)
  if (ctx.headerSent || ctx.res.headersSent) {
    ctx.res.destroy()
    return
  }
  sendError(ctx, secrets, 500, 'The server failed to handle the request', 'server_error', 'internal_error')
}

export function errorEnvelope(log: Logger, secrets: Secrets) {
  return async (ctx: HttpContext, next: () => Promise<unknown>) => {
    try {
      await next()
    } catch (error) {
      answerError(ctx, error, log, secrets)
    }
  }
}
