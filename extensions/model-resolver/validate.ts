// `/model` validation: the argument is parsed, a client is built for it (credentials checked, bare
// `custom` asks the endpoint which model it serves) and the model is checked against the provider's
// list. Any failure is one line and nothing changes; on success the caller applies the selection.

import { AgentError, errorMessage, UsageError, type ModelClient, type ModelResolveRequest, type ModelSelection, type ModelsService } from 'agent/sdk'
import { plan, type SelectContext } from './select.ts'

const HINT = 'model unchanged; see /provider, and /model <provider>:<model>'

export async function validateArg(
  ctx: SelectContext,
  service: ModelsService,
  build: (request: ModelResolveRequest) => Promise<ModelClient>,
  text: string,
  current?: { provider?: string; model?: string },
): Promise<ModelSelection> {
  const arg = service.parseModelArg(text)
  let provider: string
  if (arg.provider) provider = arg.customName ? `custom:${arg.customName}` : arg.provider
  else if (current?.provider) provider = current.provider
  else {
    const selected = service.select()
    provider = selected.customName ? `custom:${selected.customName}` : selected.provider
  }
  const request: ModelResolveRequest = { provider, model: arg.model, fallback: false }
  const chosen = plan(ctx, request)
  let client: ModelClient
  try {
    client = await build(request)
  } catch (error) {
    throw new AgentError(AgentError.isInstance(error) ? error.code : 'E_PROVIDER', `${errorMessage(error)} (${HINT})`, { cause: error })
  }
  if (arg.model && client.listModels) {
    let offered: string[]
    try {
      offered = await client.listModels()
    } catch (error) {
      throw new AgentError('E_PROVIDER', `cannot check model "${arg.model}": ${errorMessage(error)} (${HINT})`, { cause: error })
    }
    if (offered.length > 0 && !offered.includes(arg.model)) {
      const needle = arg.model.toLowerCase()
      const near = offered.filter((id) => id.toLowerCase().includes(needle) || needle.includes(id.toLowerCase())).slice(0, 3)
      throw new UsageError(`unknown model "${arg.model}" for ${client.provider}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''} (${HINT})`)
    }
  }
  return {
    provider: client.provider,
    model: client.model,
    ...(chosen.selection.baseUrl ? { baseUrl: chosen.selection.baseUrl } : {}),
    ...(chosen.selection.customName ? { customName: chosen.selection.customName } : {}),
    source: 'request',
  }
}
