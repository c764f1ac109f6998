// Model clients for the runtime: through the `models` service when it is loaded (settings,
// /model, fallback_model, auxiliary tasks), else straight through the resolveModel hook.

import { AgentError, MODELS_SERVICE, type ExtensionApi, type ModelClient, type ModelResolveRequest, type ModelsService } from 'agent/sdk'

export const NO_PROVIDER =
  'no model provider is configured: run `agent model`, or set AGENT_INFERENCE_PROVIDER=custom and OPENAI_BASE_URL=<your endpoint>'

export async function resolveClient(api: ExtensionApi<any>, request: ModelResolveRequest): Promise<ModelClient> {
  const models = api.services.get<ModelsService>(MODELS_SERVICE)
  if (models) return models.resolve(request)
  const client = await api.hooks.resolveModel.promise(request)
  if (client) return client
  throw new AgentError('E_NO_PROVIDER', NO_PROVIDER)
}
