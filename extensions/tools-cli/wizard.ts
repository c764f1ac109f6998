// `agent tools`: choose tool backends (`web.backend` and the like, declared by the tools themselves)
// and which toolsets are on. Answers are collected first and saved together at the end, so a
// cancelled wizard changes nothing. Without a terminal it prints the non-interactive equivalents.

import { backendChoices, toolNameList, TOOLS_DISABLED_KEY, type CliContext, type ToolBackendChoice } from 'agent/sdk'
import { toolRows } from './list.ts'

function keyState(ctx: CliContext, envKeys: string[]): string {
  if (envKeys.length === 0) return 'no key needed'
  return envKeys.some((k) => ctx.settings.env(k)) ? 'key set' : `needs ${envKeys[0]}`
}

function current(ctx: CliContext, choice: ToolBackendChoice): string | undefined {
  const value = ctx.settings.get<string>(choice.setting)
  return typeof value === 'string' ? value : undefined
}

function printNonInteractive(ctx: CliContext, choices: ToolBackendChoice[]): void {
  if (choices.length === 0) ctx.out('No tool declares a selectable backend.')
  for (const choice of choices) {
    ctx.out(`${choice.label} (${choice.setting}): ${current(ctx, choice) ?? 'not set (the backend whose key is present is used)'}`)
    for (const o of choice.options) ctx.out(`  - ${o.value}${o.label ? ` (${o.label})` : ''}: ${keyState(ctx, o.envKeys)}${o.note ? `; ${o.note}` : ''}`)
    ctx.out(`  set with: agent config set ${choice.setting} <${choice.options.map((o) => o.value).join('|')}>`)
  }
  ctx.out('Switch tools with: agent tools enable|disable <tool or toolset>; list them with: agent tools list')
}

export async function toolsWizard(ctx: CliContext): Promise<number> {
  const choices = backendChoices(ctx.tools.list())
  if (!ctx.isTTY) {
    printNonInteractive(ctx, choices)
    return 0
  }
  const { default: prompts } = await import('prompts')
  let cancelled = false
  const onCancel = () => {
    cancelled = true
    return false
  }
  const settings: Array<[string, unknown]> = []
  const env: Array<[string, string]> = []

  for (const choice of choices) {
    const now = current(ctx, choice)
    const { value } = await prompts(
      {
        type: 'select',
        name: 'value',
        message: `${choice.label} backend`,
        choices: choice.options.map((o) => ({ title: `${o.label ?? o.value} (${keyState(ctx, o.envKeys)})`, description: o.note, value: o.value })),
        initial: Math.max(0, choice.options.findIndex((o) => o.value === now)),
      },
      { onCancel },
    )
    if (cancelled) break
    settings.push([choice.setting, value])
    const option = choice.options.find((o) => o.value === value)
    const key = option?.envKeys[0]
    if (key && !option!.envKeys.some((k) => ctx.settings.env(k))) {
      const answer = await prompts({ type: 'password', name: 'key', message: `${key} (leave empty to set it later)` }, { onCancel })
      if (cancelled) break
      if (typeof answer.key === 'string' && answer.key.trim()) env.push([key, answer.key.trim()])
    }
  }

  const toolsets = [...new Set(toolRows(ctx).map((r) => r.toolset))].sort()
  if (!cancelled && toolsets.length > 0) {
    const disabled = toolNameList(ctx.settings, TOOLS_DISABLED_KEY)
    const { on } = await prompts(
      { type: 'multiselect', name: 'on', message: 'Toolsets to enable', choices: toolsets.map((t) => ({ title: t, value: t, selected: !disabled.has(t) })), hint: 'space to toggle, enter to confirm' },
      { onCancel },
    )
    if (!cancelled && Array.isArray(on)) {
      for (const t of toolsets) on.includes(t) ? disabled.delete(t) : disabled.add(t)
      if (disabled.size || ctx.settings.get(TOOLS_DISABLED_KEY) !== undefined) settings.push([TOOLS_DISABLED_KEY, disabled.size ? [...disabled].sort() : undefined])
    }
  }

  if (cancelled) {
    ctx.err('cancelled; nothing was changed')
    return 1
  }
  for (const [key, value] of settings) await ctx.settings.set(key, value)
  for (const [name, value] of env) await ctx.settings.setEnv(name, value)
  ctx.out(`saved ${settings.map(([k]) => k).join(', ') || 'nothing'}${env.length ? ` and ${env.map(([k]) => k).join(', ')} (to .env)` : ''}`)
  return 0
}
