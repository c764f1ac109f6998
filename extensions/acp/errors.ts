// Failures as JSON-RPC errors: one line, secrets redacted, a code the editor can act on
// (-32602 bad input, -32002 unknown session, -32600 wrong time, -32603 anything else).

import { AgentError, errorMessage, redactSecrets } from 'agent/sdk'
import type { RequestError as RequestErrorClass } from '@agentclientprotocol/sdk/unstable'

export type RequestErrorCtor = typeof RequestErrorClass

/** Codes of the JSON-RPC errors this server answers with. */
export const CODES = Object.freeze({ invalidRequest: -32600, invalidParams: -32602, internal: -32603, notFound: -32002 })

/** An error the handlers throw on purpose: its code is kept as is. */
export class AcpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'AcpFailure'
  }
}

export const badParams = (message: string) => new AcpFailure(CODES.invalidParams, message)
export const wrongTime = (message: string) => new AcpFailure(CODES.invalidRequest, message)
export const unknownSession = (sessionId: string) => new AcpFailure(CODES.notFound, `no session "${sessionId}" (start one with session/new)`, { sessionId })

function codeOf(error: unknown): number {
  if (error instanceof AcpFailure) return error.code
  const code = AgentError.isInstance(error) ? error.code : undefined
  if (code === 'E_USAGE') return CODES.invalidParams
  if (code === 'E_NOT_FOUND') return CODES.notFound
  if (code === 'E_STATE') return CODES.invalidRequest
  const numeric = (error as { code?: unknown } | null)?.code
  // RequestErrors of the SDK (a parse failure, a peer's answer) keep their JSON-RPC code.
  if (typeof numeric === 'number' && Number.isInteger(numeric)) return numeric
  return CODES.internal
}

/** The JSON-RPC error for any failure: one line, known secrets and secret-shaped strings removed. */
export function toRequestError(RequestError: RequestErrorCtor, error: unknown, secrets: Iterable<string | undefined>): InstanceType<RequestErrorCtor> {
  const message = redactSecrets(errorMessage(error), secrets).trim() || 'the request failed'
  const data = error instanceof AcpFailure ? error.data : undefined
  return new RequestError(codeOf(error), message.length > 500 ? `${message.slice(0, 500)}…` : message, data)
}
