// `agent setup`: the full wizard. Model and provider, then the steps other extensions offer through
// the command registry (`agent tools`, `agent gateway setup`), then display preferences. Without a
// terminal it prints the non-interactive command for each step instead of asking.

import { CHAT_CONFIG, errorMessage, type CliContext, type CliCommand } from 'agent/sdk'
import { requireModels } from './choose.ts'
import { asker, askModelChoice, Cancelled } from './wizard.ts'
import { saveChoice } from './save.ts'

function currentModel(ctx: CliContext): string {
  try {
    const s = requireModels(ctx).select()
    return `${s.customName ? `custom:${s.customName}` : s.provider}:${s.model || '(provider default)'}`
  } catch (error) {
    return `not configured (${errorMessage(error)})`
  }
}

function registryStep(ctx: CliContext, name: string, sub?: string): CliCommand | undefined {
  const command = ctx.commands.get(name)?.cli
  const step = sub ? command?.subcommands?.[sub] : command
  return step?.run ? step : undefined
}

function printPlan(ctx: CliContext): void {
  ctx.out(`model: ${currentModel(ctx)}`)
  ctx.out('  change: agent model --provider <name> [--model <id>] [--api-key <key>]  or  agent model --base-url <url> [--name <n>] [--context-length <n>]')
  if (registryStep(ctx, 'tools')) ctx.out('tools: agent tools list; agent config set web.backend <backend>; agent tools enable|disable <name>')
  if (registryStep(ctx, 'gateway', 'setup')) ctx.out('gateway: agent gateway setup')
  ctx.out(`display: agent config set ${CHAT_CONFIG.theme} dark|light; agent config set ${CHAT_CONFIG.showCost} true|false; agent config set ${CHAT_CONFIG.showReasoning} true|false`)
  ctx.out('(run agent setup in a terminal to be asked instead)')
}

export async function setupWizard(ctx: CliContext): Promise<number> {
  if (!ctx.isTTY) {
    printPlan(ctx)
    return 0
  }
  const ask = await asker()
  try {
    ctx.out(`Setting up the agent in ${ctx.settings.home}. Ctrl-C cancels the step you are in.\n`)
    ctx.out(`Model: ${currentModel(ctx)}`)
    if (await ask({ type: 'confirm', message: 'Choose the model provider and model now?', initial: true })) {
      const choice = await askModelChoice(ask, ctx)
      ctx.out(`saved: ${(await saveChoice(ctx.settings, choice)).join(', ')}\n`)
    }
    const tools = registryStep(ctx, 'tools')
    if (tools && (await ask({ type: 'confirm', message: 'Choose tool backends and toolsets now?', initial: true }))) await tools.run!(ctx)
    const gateway = registryStep(ctx, 'gateway', 'setup')
    if (gateway && (await ask({ type: 'confirm', message: 'Set up the messaging gateway now?', initial: false }))) await gateway.run!(ctx)

    const theme = await ask({ type: 'select', message: 'Terminal theme', choices: [{ title: 'dark background', value: 'dark' }, { title: 'light background', value: 'light' }], initial: ctx.settings.get(CHAT_CONFIG.theme) === 'light' ? 1 : 0 })
    const showCost = await ask({ type: 'confirm', message: 'Show cost in the status bar and /usage?', initial: ctx.settings.get(CHAT_CONFIG.showCost) !== false })
    const showReasoning = await ask({ type: 'confirm', message: 'Show model reasoning?', initial: ctx.settings.get(CHAT_CONFIG.showReasoning) === true })
    await ctx.settings.set(CHAT_CONFIG.theme, theme)
    await ctx.settings.set(CHAT_CONFIG.showCost, showCost)
    await ctx.settings.set(CHAT_CONFIG.showReasoning, showReasoning)
    ctx.out(`\nDone. Start chatting with \`agent\`; check everything with \`agent doctor\`.`)
    return 0
  } catch (error) {
    if (error instanceof Cancelled) {
      ctx.err('setup cancelled; the steps already confirmed stay saved')
      return 1
    }
    throw error
  }
}
