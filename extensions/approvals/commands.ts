// `/approve [session|always] [all]` and `/deny [all] [reason]` for gateway chats: they answer the
// oldest pending approval of the chat they are typed in (only the person who was asked, in groups).
// `always` saves to config, so it outlives the chat: only a user the owner named in an allowlist may
// give it (anyone else's is taken as `session`, and they are told why).

import { GATEWAY_AUTH_SERVICE, platformEnvPrefix, type ApprovalChoice, type ApprovalRequest, type ApprovalsService, type CommandDefinition, type GatewayAuthService, type MessageSource, type Services, type SlashContext } from 'agent/sdk'

function ofThisChat(request: ApprovalRequest, ctx: SlashContext): boolean {
  const sessionId = (ctx.chat as { sessionId?: string } | undefined)?.sessionId
  if (sessionId && request.sessionId === sessionId) return true
  const a = request.source
  const b = ctx.source
  if (!a || !b || a.platform !== b.platform || !a.chatId || a.chatId !== b.chatId) return false
  return !a.userId || !b.userId || a.userId === b.userId
}

/** Whether this sender may save an approval to config; no gateway-auth service means no one may. */
export function mayApproveAlways(services: Services, source: MessageSource | undefined): boolean {
  if (!source) return false
  return services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)?.namesUser(source) ?? false
}

function alwaysRefused(source: MessageSource | undefined): string {
  const list = source ? `${platformEnvPrefix(source.platform)}_ALLOWED_USERS or GATEWAY_ALLOWED_USERS` : 'an allowlist'
  return `/approve always saves to config, so it is for users named by id in ${list}; approved for this session instead.`
}

const short = (command: string) => (command.length > 120 ? `${command.slice(0, 120)}…` : command)

export function approvalCommands(service: ApprovalsService, services: Services): CommandDefinition[] {
  return [
    {
      name: 'approve',
      category: 'Safety',
      description: 'Approve the pending dangerous command',
      argsHint: '[session|always]',
      scope: 'gateway',
      async slash(ctx) {
        const words = ctx.args.toLowerCase().split(/\s+/).filter(Boolean)
        const unknown = words.filter((w) => !['session', 'ses', 'always', 'permanent', 'permanently', 'all', 'once'].includes(w))
        if (unknown.length) return void (await ctx.reply(`Unknown option "${unknown[0]}". Use /approve, /approve session or /approve always.`))
        const asked: ApprovalChoice = words.some((w) => w === 'always' || w.startsWith('permanent')) ? 'always' : words.some((w) => w === 'session' || w === 'ses') ? 'session' : 'once'
        const waiting = service.pending().filter((r) => ofThisChat(r, ctx))
        if (waiting.length === 0) return void (await ctx.reply('No command is waiting for approval.'))
        const choice = asked === 'always' && !mayApproveAlways(services, ctx.source) ? 'session' : asked
        if (choice !== asked) await ctx.reply(alwaysRefused(ctx.source))
        const targets = words.includes('all') ? waiting : waiting.slice(0, 1)
        for (const request of targets) await service.resolve(request.id, choice)
        const scope = choice === 'always' ? ' (allowed from now on, saved to config)' : choice === 'session' ? ' (allowed for this session)' : ''
        await ctx.reply(`Approved${scope}: ${targets.map((r) => short(r.command)).join(', ')}`)
      },
    },
    {
      name: 'deny',
      category: 'Safety',
      description: 'Reject the pending dangerous command',
      argsHint: '[all] [reason]',
      scope: 'gateway',
      async slash(ctx) {
        const all = /^all\b/i.test(ctx.args)
        const reason = ctx.args.replace(/^all\b/i, '').trim() || undefined
        const waiting = service.pending().filter((r) => ofThisChat(r, ctx))
        if (waiting.length === 0) return void (await ctx.reply('No command is waiting for approval.'))
        const targets = all ? waiting : waiting.slice(0, 1)
        for (const request of targets) await service.resolve(request.id, 'deny', reason ? `the user said: ${reason}` : undefined)
        await ctx.reply(`Denied: ${targets.map((r) => short(r.command)).join(', ')}`)
      },
    },
  ]
}
