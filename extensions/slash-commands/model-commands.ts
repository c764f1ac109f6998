// `/provider` and `/reasoning`: show the provider and list the others, set reasoning effort (saved,
// agent re-initialised) or toggle the reasoning display (no re-init). `/model` lives with `agent model`
// in the model-wizard extension (one registry entry per name).

import {
  CHAT_CONFIG,
  chatOf,
  errorMessage,
  MODELS_SERVICE,
  REASONING_EFFORTS,
  type CommandDefinition,
  type ExtensionApi,
  type ModelsService,
  type ReasoningEffort,
  type SlashContext,
} from 'agent/sdk'

export function modelCommands(api: ExtensionApi): CommandDefinition[] {
  const models = () => api.services.get<ModelsService>(MODELS_SERVICE)

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

  return [provider, reasoning]
}
