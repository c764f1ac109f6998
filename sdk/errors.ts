// Typed errors that cross module (and jiti reload) boundaries. `instanceof` breaks when a module is
// loaded twice, so every error carries a Symbol.for marker and a static isInstance check.

const MARKER: unique symbol = Symbol.for('agent.error') as never

export type ErrorCode =
  | 'E_CONFIG' // invalid or unreadable configuration
  | 'E_DUPLICATE' // a registry name taken by another owner
  | 'E_EXTENSION' // an extension failed to load or set up
  | 'E_DEPENDENCY' // dependsOn not satisfied
  | 'E_TIMEOUT' // something did not finish in time
  | 'E_USAGE' // bad command-line usage or input (exit 2)
  | 'E_NOT_FOUND'
  | 'E_PROVIDER' // model provider failure
  | 'E_TOOL' // a tool failed
  | 'E_BLOCKED' // a guard refused an action
  | 'E_INTERRUPTED'
  | 'E_STATE' // called at the wrong time (e.g. registering after setup)
  | (string & {})

export class AgentError extends Error {
  readonly code: ErrorCode
  /** Exit code a CLI should use when this error ends a command. */
  readonly exitCode: number
  readonly [MARKER] = true

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'AgentError'
    this.code = code
    this.exitCode = options.exitCode ?? (code === 'E_USAGE' || code === 'E_CONFIG' ? 2 : 1)
  }

  static isInstance(value: unknown): value is AgentError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true
  }
}

export class ConfigError extends AgentError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_CONFIG', message, options)
    this.name = 'ConfigError'
  }

  /** By code, not the inherited marker check (which any AgentError passes). */
  static override isInstance(value: unknown): value is ConfigError {
    return AgentError.isInstance(value) && value.code === 'E_CONFIG'
  }
}

export class UsageError extends AgentError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('E_USAGE', message, options)
    this.name = 'UsageError'
  }

  /** By code, not the inherited marker check (which any AgentError passes). */
  static override isInstance(value: unknown): value is UsageError {
    return AgentError.isInstance(value) && value.code === 'E_USAGE'
  }
}

/** One line for a human: the message of an error, never its stack. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? String(error)
  return String(error)
}

export function errorCode(error: unknown): string | undefined {
  return AgentError.isInstance(error) ? error.code : (error as { code?: string } | null)?.code
}
