// The gateway's slash commands on a running bot: registering the registry's commands with Discord
// (one sync at a time, only when Discord's list differs; slash.ts derives it) and running a command
// picked from Discord's menu as the typed `/name args` would run.

import { resolveSlash, settleWithin, type CommandDefinition, type GatewayInbound } from 'agent/sdk'
import type { ChatInputCommandInteraction, Interaction } from 'discord.js'
import { reasonOf, type Session } from './connection.ts'
import { PLATFORM, type DiscordExtra } from './settings.ts'
import { applicationCommands, ARGS_OPTION, commandsDiffer, commandText } from './slash.ts'

/** An interaction token lives 15 minutes; the deferred reply is cleaned up before that. */
const INTERACTION_MAX_MS = 14 * 60_000

/**
 * A slash command picked from Discord's menu runs exactly as the typed `/name args` would (same
 * authorisation, same chat and session). Discord wants an answer within 3 s: the interaction is
 * deferred (visible to the invoker only), the command's replies go to the channel as messages
 * (in a server channel a reply cannot be told apart from another user's answer), and the deferred
 * reply is removed when the command is done, or says why nothing happened.
 */
export async function onInteraction(session: Session, interaction: Interaction, commands: () => CommandDefinition[]): Promise<void> {
  if (session.closed || !session.botId || !interaction.isChatInputCommand()) return
  const { MessageFlags } = session.discord
  const text = commandText(interaction.commandName, interaction.options.getString(ARGS_OPTION, false))
  try {
    const resolved = resolveSlash(commands(), text, 'gateway')
    if ((!resolved || !('command' in resolved)) && interaction.commandName !== 'help') {
      await interaction.reply({ content: `/${interaction.commandName} is no longer a command of this agent.`, flags: MessageFlags.Ephemeral })
      return
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral })
    const result = await session.gateway.dispatch(interactionInbound(interaction, text))
    session.log.debug(`Discord command ${text.split(' ')[0]} from ${interaction.user.id}: ${result.status}`)
    if (result.status === 'denied') return void (await interaction.editReply('You are not authorised to use this agent.'))
    await settleWithin(result.done, INTERACTION_MAX_MS)
    await interaction.deleteReply()
  } catch (error) {
    session.log.warn(`Discord command ${text.split(' ')[0]} failed: ${session.redact(reasonOf(error))}`)
  }
}

function interactionInbound(interaction: ChatInputCommandInteraction, text: string): GatewayInbound {
  const thread = interaction.channel?.isThread() ? interaction.channel : undefined
  const userName = interaction.user.globalName ?? interaction.user.username
  return {
    source: {
      platform: PLATFORM,
      userId: interaction.user.id,
      ...(userName ? { userName } : {}),
      chatId: interaction.channelId,
      chatType: interaction.inGuild() ? 'group' : 'dm',
      ...(thread ? { threadId: thread.id } : {}),
    },
    text,
    messageId: `interaction:${interaction.id}`,
    receivedAt: interaction.createdTimestamp || Date.now(),
  }
}

async function syncCommands(session: Session, extra: Readonly<DiscordExtra>, commands: () => CommandDefinition[]): Promise<void> {
  if (!extra.slash_commands || session.closed) return
  const applicationId = session.client.application?.id
  if (!applicationId) return session.log.warn('cannot register slash commands: Discord did not say which application this bot is')
  const { Routes } = session.discord
  const wanted = applicationCommands(commands())
  try {
    const current = (await session.client.rest.get(Routes.applicationCommands(applicationId))) as unknown[]
    if (!commandsDiffer(Array.isArray(current) ? current : [], wanted)) return session.log.debug(`the ${wanted.length} slash commands registered with Discord are current`)
    await session.client.rest.put(Routes.applicationCommands(applicationId), { body: wanted })
    session.log.info(`registered ${wanted.length} slash commands with Discord`)
  } catch (error) {
    session.log.warn(`cannot register slash commands with Discord (${session.redact(reasonOf(error))}); typed commands still work`)
  }
}

/** Queues a registration with Discord after the ones already asked for (one at a time). */
export function commandSync(extra: Readonly<DiscordExtra>, commands: () => CommandDefinition[]): (session: Session) => void {
  let syncing: Promise<void> = Promise.resolve()
  return (session) => {
    // Caught here: a rejected link would reject every later sync and leave a floating rejection.
    syncing = syncing.then(() => syncCommands(session, extra, commands)).catch((error) => session.log.warn(`slash command sync failed: ${session.redact(reasonOf(error))}`))
  }
}
