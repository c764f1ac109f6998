// `/model`, `/provider` and `/reasoning`: show or switch the conversation's model, list providers,
// set reasoning effort (saved, agent re-initialised) or toggle the reasoning display (no re-init).

import {
  CHAT_CONFIG,
  chatOf,
  errorMessage,
  MODELS_SERVICE,
  REASONING_EFFORTS,
  type ChatConversation,
  type CommandDefinition,
  type ExtensionApi,
  type ModelSelection,
  type ModelsService,
  type ReasoningEffort,
  type SlashContext,
} from 'agent/sdk'
import { table } from './format.ts'

const HINT = 'Use /model to see the current model and /provider to list providers.'

function describe(selection: { provider: string; model: string; customName?: string }): string {
  if (selection.customName) return `custom:${selection.customName}:${selection.model}`
  return `${selection.provider}:${selection.model}`
}

/** Splits `/model` arguments into the model text and its flags (`--save`/`--global`, `--session`, `--provider X`). */
export function parseModelArgs(args: string): { text: string; save: boolean; provider?: string } {
  const words = args.split(/\s+/).filter(Boolean)
  let save = false
  let provider: string | undefined
  const rest: string[] = []
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!
    if (word === '--save' || word === '--global') save = true
    else if (word === '--session') save = false
    else if (word === '--provider') provider = words[++i]
    else if (word.startsWith('--provider=')) provider = word.slice('--provider='.length)
    else rest.push(word)
  }
  let text = rest.join(' ')
  if (provider) text = text ? `${provider}:${text}` : provider
  return { text, save, provider }
}

async function saveModel(api: ExtensionApi, selection: ModelSelection): Promise<void> {
  const provider = selection.customName ? `custom:${selection.customName}` : selection.provider
  await api.settings.set(CHAT_CONFIG.modelProvider, provider)
  await api.settings.set(CHAT_CONFIG.modelDefault, selection.model)
  if (selection.provider === 'custom' && !selection.customName && selection.baseUrl) await api.settings.set(CHAT_CONFIG.modelBaseUrl, selection.baseUrl)
}

function showModel(chat: ChatConversation): string {
  const m = chat.model()
  const rows: Array<[string, string]> = [
    ['model', describe(m)],
    ['origin', m.origin === 'session' ? 'this session only (reverts on restart)' : 'configuration'],
  ]
  if (m.baseUrl) rows.push(['endpoint', m.baseUrl])
  if (m.contextLength) rows.push(['context', `${m.contextLength} tokens`])
  return `Current model:\n${table(rows)}\nSwitch with /model <model>, <provider>:<model>, custom:<model> or custom:<name>:<model>; add --save to keep it.`
}

export function modelCommands(api: ExtensionApi): CommandDefinition[] {
  const models = () => api.services.get<ModelsService>(MODELS_SERVICE)

  const model: CommandDefinition = {
    name: 'model',
    category: 'Configuration',
    description: 'Show or switch the model (session only; --save keeps it in config)',
    argsHint: '[<model> | <provider>:<model> | custom[:<name>][:<model>]] [--save]',
    async slash(ctx: SlashContext) {
      const chat = chatOf(ctx)
      const { text, save } = parseModelArgs(ctx.args)
      if (!text) return void (await ctx.reply(showModel(chat)))
      const service = models()
      if (!service) return void (await ctx.reply(`Cannot switch models: no model resolver is loaded. ${HINT}`))
      const current = chat.model()
      let selection: ModelSelection
      try {
        selection = await service.validate(text, { provider: current.customName ? `custom:${current.customName}` : current.provider, model: current.model })
      } catch (error) {
        return void (await ctx.reply(`✗ Model not changed: ${errorMessage(error)}\n${HINT}`))
      }
      if (save) {
        try {
          await saveModel(api, selection)
        } catch (error) {
          return void (await ctx.reply(`✗ Model not changed: could not save to config: ${errorMessage(error)}`))
        }
      }
      await chat.setModel(selection)
      await ctx.reply(
        save
          ? `Model switched to ${describe(selection)} and saved to config (${api.settings.configPath}).`
          : `Model switched to ${describe(selection)} for this session only; it reverts on restart (use /model ${text} --save to keep it).`,
      )
    },
  }

  const provider: CommandDefinition = {
    name: 'provider',
    category: 'Configuration',
    description: 'Show the current provider and every available provider',
    async slash(ctx: SlashContext) {
      const chat = chatOf(ctx)
      const m = chat.model()
      const lines = [`Provider: ${m.customName ? `custom:${m.customName}` : m.provider}${m.baseUrl ? ` (${m.baseUrl})` : ''}, model ${m.model}`]
      const list = models()?.providers() ?? []
      if (list.length) {
        lines.push('', 'Providers:')
        for (const p of [...list].sort((a, b) => a.name.localeCompare(b.name))) {
          const state = p.configured === true ? 'ready' : `not configured (${p.configured})`
          const aliases = p.aliases.length ? ` [${p.aliases.join(', ')}]` : ''
          lines.push(`  ${p.name === m.provider ? '*' : ' '} ${p.name}${aliases} - ${state}`)
        }
      }
      lines.push('', 'Switch with /model <provider>:<model>; configure with `agent model`.')
      await ctx.reply(lines.join('\n'))
    },
  }

  const reasoning: CommandDefinition = {
    name: 'reasoning',
    category: 'Configuration',
    description: 'Show or set reasoning effort (saved), or show/hide reasoning output',
    argsHint: `[${REASONING_EFFORTS.join('|')}|show|hide]`,
    async slash(ctx: SlashContext) {
      const chat = chatOf(ctx)
      const arg = ctx.args.trim().toLowerCase()
      if (!arg) {
        const effort = chat.reasoningEffort() ?? api.settings.get<string>(CHAT_CONFIG.reasoningEffort) ?? 'provider default'
        return void (await ctx.reply(`Reasoning effort: ${effort}; reasoning display: ${chat.showReasoning() ? 'on' : 'off'}.\nSet with /reasoning <${REASONING_EFFORTS.join('|')}>; toggle display with /reasoning show|hide.`))
      }
      if (arg === 'show' || arg === 'on' || arg === 'hide' || arg === 'off') {
        const show = arg === 'show' || arg === 'on'
        chat.setShowReasoning(show)
        try {
          await api.settings.set(CHAT_CONFIG.showReasoning, show)
        } catch (error) {
          return void (await ctx.reply(`Reasoning display ${show ? 'on' : 'off'} for this session (not saved: ${errorMessage(error)}).`))
        }
        return void (await ctx.reply(`Reasoning display ${show ? 'on' : 'off'}.`))
      }
      if (!(REASONING_EFFORTS as readonly string[]).includes(arg)) {
        return void (await ctx.reply(`✗ Unknown reasoning setting "${arg}". Use one of: ${REASONING_EFFORTS.join(', ')}, show, hide.`))
      }
      try {
        await api.settings.set(CHAT_CONFIG.reasoningEffort, arg)
      } catch (error) {
        return void (await ctx.reply(`✗ Reasoning effort not changed: could not save to config: ${errorMessage(error)}`))
      }
      await chat.setReasoningEffort(arg as ReasoningEffort)
      await ctx.reply(`Reasoning effort set to ${arg} and saved to config; the agent was re-initialised.`)
    },
  }

  return [model, provider, reasoning]
}
