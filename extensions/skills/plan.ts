// `/plan <request>`: one run of the agent with the bundled `plan` skill loaded; the plan it writes is
// saved as markdown in the workspace (`<workspace>/.agent/plans/<timestamp>-<slug>.md`).

import { lstatSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { AgentError, RUNTIME_SERVICE, type AgentRuntime, type CommandDefinition, type ExtensionApi, type SlashContext } from 'agent/sdk'

export const PLAN_SKILL = 'plan'

/** A short file-name slug of the request. */
export function slugOf(text: string): string {
  const slug = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '')
  return slug || 'plan'
}

function timestamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`
}

/** Where the conversation works: the surface's cwd when it has one, else terminal.cwd, else the process cwd. */
export function workspaceOf(ctx: SlashContext, api: ExtensionApi<any>): string {
  const fromChat = (ctx.chat as { cwd?: unknown } | undefined)?.cwd
  if (typeof fromChat === 'string' && fromChat) return fromChat
  const configured = api.settings.get<string>('terminal.cwd')
  return typeof configured === 'string' && configured ? configured : process.cwd()
}

/**
 * `<workspace>/.agent/plans`, made where missing. A part that is a symbolic link is refused: a
 * cloned repository's `.agent/plans` could lead to a folder whose files run (~/.bashrc.d).
 */
function plansFolder(workspace: string): string {
  let dir = workspace
  for (const part of ['.agent', 'plans']) {
    dir = join(dir, part)
    const info = lstatSync(dir, { throwIfNoEntry: false })
    if (info && !info.isDirectory()) throw new AgentError('E_STATE', `cannot save the plan: ${dir} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}`)
    if (!info) mkdirSync(dir)
  }
  return dir
}

export async function savePlan(workspace: string, request: string, plan: string, now = new Date()): Promise<string> {
  const dir = plansFolder(workspace)
  const path = join(dir, `${timestamp(now)}-${slugOf(request)}.md`)
  const body = plan.trimStart().startsWith('#') ? plan : `# Plan: ${request}\n\n${plan}`
  await writeFileAtomic(path, body.endsWith('\n') ? body : body + '\n')
  return path
}

export function planCommand(api: ExtensionApi<any>): CommandDefinition {
  return {
    name: 'plan',
    category: 'Skills',
    description: 'Write a plan for a request with the bundled planning skill; the plan is saved in the workspace',
    argsHint: '<request>',
    scope: 'both',
    async slash(ctx) {
      const request = ctx.args.trim()
      if (!request) return void (await ctx.reply('Usage: /plan <what you want done>'))
      const runtime = api.services.get<AgentRuntime>(RUNTIME_SERVICE)
      if (!runtime) throw new AgentError('E_STATE', '/plan needs the agent runtime, which is not loaded')
      const workspace = workspaceOf(ctx, api)
      const source = ctx.source ? { platform: ctx.source.platform, userId: ctx.source.userId, chatId: ctx.source.chatId } : { platform: ctx.surface }
      const result = await runtime.run({ input: request, skills: [PLAN_SKILL], cwd: workspace, source })
      if (!result.answer.trim()) throw new AgentError('E_TOOL', 'the planning run produced no plan')
      const path = await savePlan(workspace, request, result.answer)
      await ctx.reply(`${result.answer.trim()}\n\nPlan saved to ${path}`)
    },
  }
}
