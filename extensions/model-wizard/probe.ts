// Asks an endpoint which models it serves, within a few seconds, through the real provider client.

import { errorMessage, type ModelResolveRequest, type ModelsService } from 'agent/sdk'

export interface ProbeResult {
  ok: boolean
  models: string[]
  error?: string
}

export async function probeModels(models: ModelsService, request: ModelResolveRequest, timeoutMs = 8000): Promise<ProbeResult> {
  const signal = AbortSignal.timeout(timeoutMs)
  const timedOut = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), { once: true }))
  try {
    // A placeholder model keeps the client from probing on its own (without our deadline).
    const client = await Promise.race([models.resolve({ ...request, model: request.model ?? 'probe', fallback: false }), timedOut])
    if (!client.listModels) return { ok: true, models: [] }
    const list = await Promise.race([client.listModels(signal), timedOut])
    return { ok: true, models: list }
  } catch (error) {
    return { ok: false, models: [], error: errorMessage(error) }
  }
}
