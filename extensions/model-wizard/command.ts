// `agent model`: flags apply a choice without questions; a terminal gets the wizard; anything else
// prints the current selection and how to change it (nothing waits for input without a terminal).

import { errorMessage, snakeCaseKeys, type CliContext } from 'agent/sdk'
import { choiceFromFlags, requireModels } from './choose.ts'
import { saveChoice } from './save.ts'

const FLAGS = ['provider', 'model', 'base-url', 'name', 'api-key', 'context-length']

function listProviders(ctx: CliContext): void {
  const list = requireModels(ctx).providers().sort((a, b) => a.name.localeCompare(b.name))
  if (ctx.argv.json) return ctx.json(list.map(({ name, aliases, label, envKeys, configured }) => ({ name, aliases, label, env_keys: envKeys, configured: configured === true, reason: configured === true ? undefined : configured })))
  for (const p of list) ctx.out(`${p.configured === true ? '✓' : '·'} ${p.name.padEnd(16)} ${p.label ?? ''}${p.configured === true ? '' : `  (${p.configured})`}`)
}

function showCurrent(ctx: CliContext): void {
  const models = requireModels(ctx)
  let selection
  try {
    selection = models.select()
  } catch (error) {
    if (ctx.argv.json) return ctx.json({ configured: false, reason: errorMessage(error) })
    ctx.out(`no model configured: ${errorMessage(error)}`)
    ctx.out('configure with: agent model --provider <name> [--model <id>] [--api-key <key>], or agent model --base-url <url> (run in a terminal to be asked)')
    return
  }
  if (ctx.argv.json) return ctx.json(snakeCaseKeys({ configured: true, ...selection, provider: selection.customName ? `custom:${selection.customName}` : selection.provider }))
  ctx.out(`provider: ${selection.customName ? `custom:${selection.customName}` : selection.provider} (from ${selection.source})`)
  ctx.out(`model:    ${selection.model || '(provider default / served model)'}`)
  if (selection.baseUrl) ctx.out(`endpoint: ${selection.baseUrl}`)
  ctx.out('change with: agent model --provider <name> [--model <id>] (run in a terminal to be asked)')
}

export async function modelCommand(ctx: CliContext): Promise<number> {
  if (ctx.argv.list) return void listProviders(ctx), 0
  if (FLAGS.some((f) => ctx.argv[f] !== undefined)) {
    const choice = await choiceFromFlags(ctx)
    const written = await saveChoice(ctx.settings, choice)
    if (ctx.argv.json) ctx.json({ saved: written, provider: choice.name ? `custom:${choice.name}` : choice.provider, model: choice.model ?? null })
    else ctx.out(`saved: ${written.join(', ')}`)
    return 0
  }
  if (ctx.isTTY && !ctx.argv.json) {
    const { modelWizard } = await import('./wizard.ts')
    return modelWizard(ctx)
  }
  showCurrent(ctx)
  return 0
}
