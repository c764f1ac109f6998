// Fail closed: the kernel's own first `beforeToolCall` tap. An extension that declares
// `guards.tools` protects those tools; whenever it is not loaded (bad config, setup error or
// timeout, a failed reload with no version left, disabled, unloaded) they refuse with one line.

import { AgentError, ConfigError } from '../sdk/errors.ts'
import type { ToolCallEvent, ToolCallVerdict } from '../sdk/hooks.ts'
import type { ExtensionDefinition, ExtensionInfo } from '../sdk/types.ts'
import type { TapRecord } from './hooks.ts'

/** Not a kebab-case name, so no extension can own (and replace) this tap. */
export const GUARDS_TAP_OWNER = 'kernel:guards'

/** The declared tools of a definition; a malformed declaration is the extension's own load error. */
export function declaredGuards(definition: ExtensionDefinition<any>): string[] | undefined {
  const guards = definition.guards as unknown
  if (guards === undefined) return undefined
  const tools = (guards as { tools?: unknown } | null)?.tools
  if (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string' && t.length > 0)) {
    throw new AgentError('E_EXTENSION', `"guards.tools" of "${definition.name}" must be a list of tool names`)
  }
  return [...new Set(tools as string[])]
}

/** What to do about an extension that failed (`error`) or is disabled, for refusals and `agent doctor`. */
export function fixFor(name: string, state: 'failed' | 'disabled', configPath: string, error?: unknown): string {
  if (state === 'disabled') return `remove "${name}" from extensions.disabled in ${configPath}`
  if (ConfigError.isInstance(error)) return 'fix the setting and run agent doctor'
  return 'run agent doctor to see why it did not load'
}

export class GuardTable {
  /** Guard extension → tools. Kept after an unload: an unloaded guard still refuses. */
  private readonly declared = new Map<string, string[]>()

  constructor(private readonly stateOf: (name: string) => ExtensionInfo | undefined) {}

  /** Records (or replaces, on a committed reload) what an extension guards. */
  note(name: string, tools: string[] | undefined): void {
    if (tools) this.declared.set(name, tools)
    else this.declared.delete(name)
  }

  toolsOf(name: string): string[] | undefined {
    return this.declared.get(name)
  }

  /** A refusal for a guarded tool whose guard is not loaded; undefined when every guard of it is. */
  verdict(event: ToolCallEvent): ToolCallVerdict | undefined {
    for (const [guard, tools] of this.declared) {
      if (!tools.includes(event.tool)) continue
      const info = this.stateOf(guard)
      if (info?.state === 'loaded') continue
      const why = info ? (info.state === 'disabled' ? 'disabled in extensions.disabled' : (info.reason ?? info.state)) : 'unloaded'
      const fix = info?.fix ?? (info ? 'run agent doctor to see why it did not load' : 'restart the agent to load it again')
      return { block: true, reason: `refused: the ${guard} guard is not loaded (${oneLine(why)}); ${fix}. Do not retry or work around it.` }
    }
    return undefined
  }

  /** The tap the kernel puts first on beforeToolCall. */
  tap(): TapRecord {
    return { hook: 'beforeToolCall', owner: GUARDS_TAP_OWNER, type: 'promise', stage: Number.MIN_SAFE_INTEGER, fn: async (event: ToolCallEvent) => this.verdict(event) }
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()
