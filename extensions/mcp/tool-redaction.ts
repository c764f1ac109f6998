// MCP tool descriptions and input schemas are the server's text, and they go into every model request
// that offers the tools. A server may put a value the agent knows as a secret into them (the key it
// was configured with, a key from .env), and the runtime redacts a request's messages, not its tool
// list. So the MCP tools of each request are redacted here, with the secrets known at the time of
// the request (a key added to .env after the tools were registered counts), before the model sees
// them. Tool names and schema property names cannot be redacted (the model must call them as the
// server knows them), so a tool with a known secret in either is not offered at all.

import { knownSecretsRedactor, redactDeep, type ExtensionApi, type ToolSchema } from 'agent/sdk'

/** Every bridged tool's name starts so (bridge.ts bridgedName; configured servers and an editor's alike). */
const MCP_PREFIX = 'mcp__'

/** Late: what earlier taps added to the tool list is redacted too. */
const STAGE = 1000

/**
 * `tools` with the description and the strings inside the parameters of every MCP tool redacted;
 * the same array (and schema objects) where nothing changed, so providers keep their wire forms.
 */
export function redactToolSchemas(tools: ToolSchema[] | undefined, redact: (text: string) => string, withheld?: (redactedName: string) => void): ToolSchema[] | undefined {
  if (!tools?.length) return tools
  let out: Array<ToolSchema | undefined> | undefined
  tools.forEach((tool, i) => {
    if (!tool.name.startsWith(MCP_PREFIX)) return
    const names = [tool.name, ...keysOf(tool.parameters)].join('\n')
    if (redact(names) !== names) {
      withheld?.(redact(tool.name))
      return void ((out ??= [...tools])[i] = undefined)
    }
    const description = redact(tool.description)
    const parameters = redactDeep(tool.parameters, redact)
    if (description !== tool.description || parameters !== tool.parameters) (out ??= [...tools])[i] = { ...tool, description, parameters }
  })
  return out ? out.filter((tool): tool is ToolSchema => tool !== undefined) : tools
}

/** Every object key in a schema (property names, and names under any other keyword). */
function keysOf(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 64 || value === null || typeof value !== 'object') return found
  for (const [key, inner] of Object.entries(value)) {
    if (!Array.isArray(value)) found.push(key)
    keysOf(inner, found, depth + 1)
  }
  return found
}

/** Taps beforeModelRequest. Secrets that cannot be read fail the request (the runtime's rule). */
export function redactOfferedTools(api: ExtensionApi<any>): void {
  const warned = new Set<string>()
  api.hooks.beforeModelRequest.tap({ stage: STAGE }, (request) => {
    if (!request.tools?.some((t) => t.name.startsWith(MCP_PREFIX))) return request
    const tools = redactToolSchemas(request.tools, knownSecretsRedactor(api.settings), (name) => {
      if (warned.has(name)) return
      warned.add(name)
      api.log.warn(`MCP tool ${name} is not offered to the model: its name or a parameter's name holds a known secret`)
    })
    return tools === request.tools ? request : { ...request, tools }
  })
}
