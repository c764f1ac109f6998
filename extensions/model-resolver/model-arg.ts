// Parsing of `/model` arguments: `<model>`, `<provider>:<model>`, `custom`, `custom:<model>`,
// `custom:<name>`, `custom:<name>:<model>`. A colon inside a model id (`llama3:8b`, `x/y:free`) is
// kept when the part before it names no provider.

import { UsageError, type ModelArg } from 'agent/sdk'

export interface ArgContext {
  /** Canonical provider for a name or alias, or undefined. */
  canonical(name: string): string | undefined
  /** Whether custom_providers has an entry of this name. */
  hasCustom(name: string): boolean
}

const USAGE = 'use /model <model>, <provider>:<model>, custom, custom:<model> or custom:<name>:<model>'

function checkModelId(model: string): string {
  if (model.length > 200 || /\s/.test(model)) throw new UsageError(`invalid model name "${model.slice(0, 60)}": ${USAGE}`)
  return model
}

export function parseModelArg(text: string, ctx: ArgContext): ModelArg {
  const t = text.trim()
  if (!t) throw new UsageError(`no model given: ${USAGE}`)
  const colon = t.indexOf(':')
  const head = colon < 0 ? t : t.slice(0, colon)
  const rest = colon < 0 ? '' : t.slice(colon + 1)
  const provider = ctx.canonical(head)
  if (provider === 'custom') {
    if (!rest) return { provider: 'custom' }
    const second = rest.indexOf(':')
    const name = second < 0 ? rest : rest.slice(0, second)
    if (ctx.hasCustom(name)) {
      const model = second < 0 ? '' : rest.slice(second + 1)
      return model ? { provider: 'custom', customName: name, model: checkModelId(model) } : { provider: 'custom', customName: name }
    }
    return { provider: 'custom', model: checkModelId(rest) }
  }
  if (colon < 0) {
    // A bare provider name switches provider and takes its default model.
    return provider ? { provider } : { model: checkModelId(t) }
  }
  if (provider) return rest ? { provider, model: checkModelId(rest) } : { provider }
  return { model: checkModelId(t) }
}
