// Identity helpers: they only give authors types and a single place to hang future validation.

import type { ExtensionDefinition, ToolDefinition, CommandDefinition, ProviderDefinition, AdapterDefinition, EndpointDefinition } from './types.ts'

export function defineExtension<C = Record<string, unknown>>(definition: ExtensionDefinition<C>): ExtensionDefinition<C> {
  return definition
}

export function defineTool<I = any>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return tool
}

export function defineCommand(command: CommandDefinition): CommandDefinition {
  return command
}

export function defineProvider(provider: ProviderDefinition): ProviderDefinition {
  return provider
}

export function defineAdapter(adapter: AdapterDefinition): AdapterDefinition {
  return adapter
}

export function defineEndpoint(endpoint: EndpointDefinition): EndpointDefinition {
  return endpoint
}
