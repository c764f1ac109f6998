// The Slack app manifest for this agent, so that creating the app is a paste (api.slack.com/apps →
// Create New App → From a manifest): Socket Mode on, the bot scopes and events the adapter uses, the
// messages tab for direct messages, and the one slash command with the registry's subcommands as
// its usage hint. `agent gateway slack-manifest` prints it (YAML, or JSON with --json).

import { ConfigError, UsageError, type CliContext, type CliSubcommand, type CommandDefinition } from 'agent/sdk'
import { stringify } from 'yaml'
import { slashCommandName, type SlackExtra } from './settings.ts'
import { usageHint } from './subcommands.ts'

/** What the adapter needs: read messages where it is (channels, private channels, DMs, group DMs), write, the slash command. */
export const BOT_SCOPES = ['app_mentions:read', 'channels:history', 'chat:write', 'commands', 'groups:history', 'im:history', 'im:write', 'mpim:history']
export const BOT_EVENTS = ['app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim']
export const DEFAULT_APP_NAME = 'Agent'
/** Slack's limit on an app's name. */
const MAX_NAME = 35

export interface ManifestOptions {
  name: string
  slash: string
}

/** Slack's rule for the bot user's name: lowercase letters, digits, `.`, `-`, `_`, at most 80. */
export function botUserName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'agent'
}

export function appManifest(commands: readonly CommandDefinition[], options: ManifestOptions): Record<string, unknown> {
  const name = options.name.trim()
  if (!name || name.length > MAX_NAME) throw new ConfigError(`the Slack app name must be 1 to ${MAX_NAME} characters, not "${name}"`)
  return {
    display_information: { name, description: 'A tool-using AI agent: message it directly, mention it in a channel, or use the slash command' },
    features: {
      app_home: { home_tab_enabled: false, messages_tab_enabled: true, messages_tab_read_only_enabled: false },
      bot_user: { display_name: botUserName(name), always_online: true },
      slash_commands: [{ command: options.slash, description: `Run an agent command (${options.slash} help lists them)`, usage_hint: usageHint(commands), should_escape: false }],
    },
    oauth_config: { scopes: { bot: BOT_SCOPES } },
    settings: {
      event_subscriptions: { bot_events: BOT_EVENTS },
      org_deploy_enabled: false,
      socket_mode_enabled: true,
      token_rotation_enabled: false,
    },
  }
}

/** `agent gateway slack-manifest [--json] [--name N] [--command /c]`. */
export function manifestSubcommand(extra: () => Readonly<Partial<SlackExtra>> | undefined): CliSubcommand {
  return {
    description: 'Print the Slack app manifest (Socket Mode, scopes, events, the slash command) to paste at api.slack.com/apps',
    options: {
      json: { type: 'boolean', describe: 'Print JSON instead of YAML' },
      name: { type: 'string', describe: `The app's name (default platforms.slack.extra.app_name, else "${DEFAULT_APP_NAME}")` },
      command: { type: 'string', describe: 'The slash command (default platforms.slack.extra.slash_command, else /agent)' },
    },
    examples: [['agent gateway slack-manifest > manifest.yaml', 'Then Create New App → From a manifest, and paste it']],
    run(ctx: CliContext) {
      const settings = extra()
      const nameOption = ctx.argv.name
      const commandOption = ctx.argv.command
      if (nameOption !== undefined && typeof nameOption !== 'string') throw new UsageError('--name needs a value')
      if (commandOption !== undefined && typeof commandOption !== 'string') throw new UsageError('--command needs a value')
      const slash = slashCommandName(commandOption !== undefined ? { slash_command: commandOption } : settings)
      const manifest = appManifest(ctx.commands.list(), { name: nameOption ?? settings?.app_name ?? DEFAULT_APP_NAME, slash })
      if (ctx.argv.json) return ctx.json(manifest)
      ctx.out(stringify(manifest).trimEnd())
    },
  }
}
