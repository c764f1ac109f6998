// One invocation of the slash command (a `slash_commands` envelope): `/agent <subcommand> [args]` is
// dispatched to the gateway as the typed `/<subcommand> args` (same authorisation, chat and session;
// replies go to the channel), while help, an unknown subcommand and a refusal are answered to the
// invoker only, through the command's response URL (which works where the app is not a member).

import {
  AgentError, GATEWAY_AUTH_SERVICE,
  type CommandDefinition, type GatewayAuthService, type GatewayService, type Logger, type MessageSource, type Services,
} from 'agent/sdk'
import { slackParts } from './format.ts'
import { PLATFORM } from './settings.ts'
import { resolveSubcommand, subcommandHelp } from './subcommands.ts'

const NOT_AUTHORISED = 'You are not authorised to use this agent.'

export interface SlashCommandContext {
  gateway: GatewayService
  services: Pick<Services, 'get'>
  log: Logger
  /** The command this agent answers (`/agent`). */
  slash: string
  commands(): CommandDefinition[]
  /** The Web API base: its origin may receive private answers too (a test fake). */
  apiBase: string
}

export async function handleSlashCommand(ctx: SlashCommandContext, envelopeId: string, body: Record<string, unknown>): Promise<void> {
  const userId = String(body.user_id ?? '')
  const channelId = String(body.channel_id ?? '')
  if (!userId || !channelId) return ctx.log.debug('ignored a Slack slash command without a user or channel')
  const privately = (text: string) => respond(ctx, body.response_url, text)
  if (body.command !== ctx.slash) return privately(`This agent answers ${ctx.slash}, not ${String(body.command)}.`)
  const source: MessageSource = { platform: PLATFORM, userId, ...(body.user_name ? { userName: String(body.user_name) } : {}), chatId: channelId, chatType: channelId.startsWith('D') ? 'dm' : 'group' }
  const sub = resolveSubcommand(ctx.commands(), String(body.text ?? ''))
  if (sub.kind !== 'command') {
    const auth = ctx.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
    if (!(await auth?.authorize(source))?.allowed) return privately(NOT_AUTHORISED)
    if (sub.kind === 'help') return privately(subcommandHelp(ctx.commands(), ctx.slash))
    return privately(`\`${ctx.slash} ${sub.word}\` is not a command of this agent; \`${ctx.slash} help\` lists them.`)
  }
  const result = await ctx.gateway.dispatch({ source, text: sub.text, messageId: `command:${envelopeId}`, receivedAt: Date.now() })
  ctx.log.debug(`Slack ${ctx.slash} ${sub.name} from ${userId}: ${result.status}`)
  if (result.status === 'denied') await privately(NOT_AUTHORISED)
}

/** An answer only the invoker sees. */
async function respond(ctx: SlashCommandContext, target: unknown, text: string): Promise<void> {
  const url = responseUrl(target, ctx.apiBase)
  if (!url) return ctx.log.warn('cannot answer a Slack slash command: it came without a Slack response URL')
  for (const part of slackParts(text)) {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ response_type: 'ephemeral', text: part }), signal: AbortSignal.timeout(15_000) })
    await response.arrayBuffer().catch(() => undefined)
    if (!response.ok) throw new AgentError('E_DELIVERY', `Slack refused the answer to a slash command: HTTP ${response.status}`)
  }
}

/** Only Slack's own hooks (or the configured API's origin) receive answers. */
export function responseUrl(value: unknown, apiBase: string): string | undefined {
  if (typeof value !== 'string') return undefined
  try {
    const url = new URL(value)
    if (url.protocol === 'https:' && url.hostname === 'hooks.slack.com') return url.href
    return url.origin === new URL(apiBase).origin ? url.href : undefined
  } catch {
    return undefined
  }
}
