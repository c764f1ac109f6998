// Which backend the configuration asks for. AGENT_DATABASE_URL wins over `storage.url` (a deployment
// sets the environment; the config file travels between machines). A value that is set but is not a
// postgres:// URL is an error, never a silent fallback to the local file: an instance that quietly
// kept its own SQLite would split the truth several instances are meant to share.

import { AgentError } from 'agent/sdk'

export interface ResolvedStorage {
  backend: 'sqlite' | 'postgres'
  url?: string
  /** The URL with its password masked, and where it came from. */
  label?: string
}

export function redactUrl(url: URL): string {
  const copy = new URL(url.href)
  if (copy.password) copy.password = '***'
  return copy.href
}

export function resolveStorage(fromConfig: string | undefined, fromEnv: string | undefined): ResolvedStorage {
  const [raw, where] = fromEnv !== undefined && fromEnv.trim() !== '' ? [fromEnv.trim(), 'AGENT_DATABASE_URL'] : [fromConfig?.trim(), 'storage.url']
  if (!raw) return { backend: 'sqlite' }
  return parsePostgresUrl(raw, where, 'leave it unset for the local SQLite state.db')
}

/** Checks that `raw` is a postgres:// URL naming a host; errors name `where`, never the value. */
export function parsePostgresUrl(raw: string, where: string, otherwise?: string): { backend: 'postgres'; url: string; label: string } {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    // The value may hold a password: never echo it.
    throw new AgentError('E_CONFIG', `${where} is not a URL; expected postgres://user:password@host:5432/database`)
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new AgentError('E_CONFIG', `${where} must be a postgres:// URL (got a ${url.protocol}// URL)${otherwise ? `; ${otherwise}` : ''}`)
  }
  if (!url.hostname && !url.searchParams.get('host')) throw new AgentError('E_CONFIG', `${where} names no host`)
  return { backend: 'postgres', url: raw, label: `${redactUrl(url)} (${where})` }
}
