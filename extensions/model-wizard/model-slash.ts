// `/model`: show the conversation's model, or switch it for this session (`--save` keeps it in
// config). The argument is validated by the models service; an invalid one changes nothing.

import { chatOf, errorMessage, MODELS_SERVICE, type ChatConversation, type ExtensionApi, type ModelSelection, type ModelsService, type SlashContext } from 'agent/sdk'
import { describeSelection, saveSelection } from './save.ts'

const HINT = 'Use /model to see the current model and /provider to list providers.'

/** Splits `/model` arguments into the model text and its flags (`--save`/`--global`, `--session`, `--provider X`). */
export function parseModelArgs(args: string): { text: string; save: boolean } {
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
  return { text, save }
}

function showModel(chat: ChatConversation): string {
  const m = chat.model()
  const lines = [
    `Current model: ${describeSelection(m)}${m.origin === 'session' ? ' (this session only; reverts on restart)' : ''}`,
    ...(m.baseUrl ? [`Endpoint: ${m.baseUrl}`] : []),
    ...(m.contextLength ? [`Context window: ${m.contextLength} tokens`] : []),
    'Switch with /model <model>, <provider>:<model>, custom, custom:<model> or custom:<name>:<model>; add --save to keep it.',
  ]
  return lines.join('\n')
}

export async function modelSlash(api: ExtensionApi, ctx: SlashContext): Promise<void> {
  const chat = chatOf(ctx)
  const { text, save } = parseModelArgs(ctx.args)
  if (!text) return void (await ctx.reply(showModel(chat)))
  const models = api.services.get<ModelsService>(MODELS_SERVICE)
  if (!models) return void (await ctx.reply(`✗ Model not changed: no model resolver is loaded. ${HINT}`))
  const current = chat.model()
  let selection: ModelSelection
  try {
    selection = await models.validate(text, { provider: current.customName ? `custom:${current.customName}` : current.provider, model: current.model })
  } catch (error) {
    return void (await ctx.reply(`✗ Model not changed: ${errorMessage(error)}\n${HINT}`))
  }
  if (save) {
    try {
      await saveSelection(api.settings, selection)
    } catch (error) {
      return void (await ctx.reply(`✗ Model not changed: could not save to config: ${errorMessage(error)}`))
    }
  }
  await chat.setModel(selection)
  await ctx.reply(
    save
      ? `Model switched to ${describeSelection(selection)} and saved to config (${api.settings.configPath}).`
      : `Model switched to ${describeSelection(selection)} for this session only; it reverts on restart (use /model ${text} --save to keep it).`,
  )
}
