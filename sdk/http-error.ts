// The error type an HTTP handler throws to answer with a status: the http extension turns it into
// the error envelope. Its own file so sdk/json-intake.ts can extend it without an import cycle.

const HTTP_ERROR_MARKER: unique symbol = Symbol.for('agent.http-error') as never

export class HttpError extends Error {
  readonly status: number
  readonly type: string
  readonly code: string | null
  readonly param: string | null
  readonly headers: Record<string, string>
  readonly [HTTP_ERROR_MARKER] = true

  constructor(status: number, message: string, options: { type?: string; code?: string; param?: string; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.type = options.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error')
    this.code = options.code ?? null
    this.param = options.param ?? null
    this.headers = options.headers ?? {}
  }

  static isInstance(value: unknown): value is HttpError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[HTTP_ERROR_MARKER] === true
  }
}
