// Interfaces of the services built-in extensions provide to each other (`api.services.get<T>(name)`).
// Extensions cooperate through these, never by importing each other's files.

export const HTTP_SERVICE = 'http'

export interface HttpService {
  /** Starts every listener that has endpoints (idempotent); gateway mode does this on ready. */
  start(): Promise<void>
  /** Where a running listener is reachable. */
  address(listener: string): { host: string; port: number; url: string } | undefined
  /** Names of running listeners. */
  running(): string[]
  stop(): Promise<void>
}
