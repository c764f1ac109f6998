// The tool lists of MCP servers as last seen, in <agent_home>/mcp/tools/<server>.json. Setup
// registers bridged tools from these files (registration is legal during setup only); a connect
// that finds a different list rewrites the file and asks the kernel to reload this extension.

import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'

export interface CachedTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
}

export interface ToolCache {
  server: string
  updated_at: string
  tools: CachedTool[]
}

export const cacheDir = (home: string) => join(home, 'mcp', 'tools')
const cacheFile = (home: string, server: string) => join(cacheDir(home), `${server}.json`)

export function readCache(home: string, server: string): ToolCache | undefined {
  try {
    const parsed = JSON.parse(readFileSync(cacheFile(home, server), 'utf8')) as ToolCache
    return Array.isArray(parsed.tools) ? parsed : undefined
  } catch {
    return undefined
  }
}

/** A fingerprint of a tool list: same tools, descriptions and schemas give the same value. */
export function fingerprint(tools: readonly CachedTool[]): string {
  const canonical = [...tools].sort((a, b) => a.name.localeCompare(b.name)).map((t) => [t.name, t.description ?? '', stable(t.inputSchema)])
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex')
}

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable)
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, stable((value as Record<string, unknown>)[k])]))
  return value
}

/** Writes the list; returns whether it differs from what was cached. */
export async function writeCache(home: string, server: string, tools: CachedTool[]): Promise<boolean> {
  const previous = readCache(home, server)
  const changed = !previous || fingerprint(previous.tools) !== fingerprint(tools)
  if (changed) {
    mkdirSync(cacheDir(home), { recursive: true, mode: 0o700 })
    await writeFileAtomic(cacheFile(home, server), JSON.stringify({ server, updated_at: new Date().toISOString(), tools } satisfies ToolCache, null, 2) + '\n', { mode: 0o600 })
  }
  return changed
}

export function removeCache(home: string, server: string): void {
  rmSync(cacheFile(home, server), { force: true })
}
