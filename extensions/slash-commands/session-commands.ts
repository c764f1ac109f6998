// Session slash commands: /new (/reset), /title, /compress, /stop, /queue, /resume, /background.
// Each acts on the conversation of the surface it was typed in (chatOf(ctx)).

import { chatOf, errorMessage, type ChatConversation, type CommandDefinition, type SlashContext } from 'agent/sdk'
import { formatTokens } from './format.ts'

/** The gateway's controller may name it `reset`; the CLI's `newSession`. */
async function startNew(chat: ChatConversation): Promise<void> {
  const loose = chat as unknown as { newSession?: () => Promise<void>; reset?: () => Promise<void> }
  if (typeof loose.newSession === 'function') return loose.newSession()
  if (typeof loose.reset === 'function') return loose.reset()
  throw new Error('this chat cannot start a new session')
}

function when(ms: number | undefined): string {
  if (!ms) return ''
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
}

export function sessionCommands(): CommandDefinition[] {
  return [
    {
      name: 'new',
      aliases: ['reset'],
      category: 'Session',
      description: 'Start a fresh session',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        if (chat.busy()) await chat.stop()
        await startNew(chat)
        await ctx.reply('Started a new session.')
      },
    },
    {
      name: 'title',
      category: 'Session',
      description: 'Show or set the title of this session',
      argsHint: '[title]',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        const title = ctx.args.trim()
        if (!title) return void (await ctx.reply(chat.title() ? `Title: ${chat.title()}` : 'This session has no title yet; set one with /title <title>.'))
        if (title.length > 100) return void (await ctx.reply('✗ Title not changed: at most 100 characters.'))
        try {
          await chat.setTitle(title)
        } catch (error) {
          return void (await ctx.reply(`✗ Title not changed: ${errorMessage(error)}`))
        }
        await ctx.reply(`Session titled "${title}".`)
      },
    },
    {
      name: 'compress',
      aliases: ['compact'],
      category: 'Session',
      description: 'Compress the conversation context now',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        if (chat.busy()) return void (await ctx.reply('✗ A turn is running; wait for it or /stop it, then /compress.'))
        try {
          const r = await chat.compress()
          const tokens = r.beforeTokens !== undefined && r.afterTokens !== undefined ? `, ~${formatTokens(r.beforeTokens)} → ~${formatTokens(r.afterTokens)} tokens` : ''
          await ctx.reply(r.beforeMessages === r.afterMessages ? `Nothing to compress (${r.beforeMessages} messages).` : `Compressed context: ${r.beforeMessages} → ${r.afterMessages} messages${tokens}.`)
        } catch (error) {
          await ctx.reply(`✗ Could not compress: ${errorMessage(error)}`)
        }
      },
    },
    {
      name: 'stop',
      category: 'Session',
      description: 'Stop the current turn',
      async slash(ctx: SlashContext) {
        const stopped = await chatOf(ctx).stop()
        await ctx.reply(stopped ? 'Stopped the current turn.' : 'Nothing is running.')
      },
    },
    {
      name: 'queue',
      aliases: ['q'],
      category: 'Session',
      description: 'Queue a prompt to run after the current turn',
      argsHint: '<prompt>',
      async slash(ctx: SlashContext) {
        const prompt = ctx.args.trim()
        if (!prompt) return void (await ctx.reply('Usage: /queue <prompt>'))
        const position = chatOf(ctx).queue(prompt)
        await ctx.reply(typeof position === 'number' && position > 0 ? `Queued (position ${position}).` : typeof position === 'number' ? 'Running it now.' : 'Queued.')
      },
    },
    {
      name: 'resume',
      category: 'Session',
      description: 'Resume a stored session by id or title (no argument lists recent ones)',
      argsHint: '[id or title]',
      async slash(ctx: SlashContext) {
        const chat = chatOf(ctx)
        const target = ctx.args.trim()
        if (!target) {
          const recent = await chat.recentSessions(10)
          if (recent.length === 0) return void (await ctx.reply('No stored sessions yet.'))
          const lines = recent.map((s) => `  ${s.id}  ${when(s.updatedAt)}  ${s.title ?? '(untitled)'}${s.messageCount !== undefined ? `  ${s.messageCount} msgs` : ''}`)
          return void (await ctx.reply(`Recent sessions (resume with /resume <id or title>):\n${lines.join('\n')}`))
        }
        if (chat.busy()) return void (await ctx.reply('✗ A turn is running; wait for it or /stop it, then /resume.'))
        try {
          const s = await chat.resume(target)
          await ctx.reply(`Resumed session ${s.title ? `"${s.title}" ` : ''}(${s.id}${s.messageCount !== undefined ? `, ${s.messageCount} messages` : ''}).`)
        } catch (error) {
          await ctx.reply(`✗ ${errorMessage(error)}`)
        }
      },
    },
    {
      name: 'background',
      aliases: ['bg'],
      category: 'Session',
      description: 'Run a prompt in an isolated background session; its result is shown when done',
      argsHint: '<prompt>',
      async slash(ctx: SlashContext) {
        const prompt = ctx.args.trim()
        if (!prompt) return void (await ctx.reply('Usage: /background <prompt>'))
        const chat = chatOf(ctx)
        const started = chat.background(prompt)
        if (started && typeof (started as Promise<void>).then === 'function') {
          // The promise may settle only when the run is over: never await it here.
          ;(started as Promise<void>).catch((error) => ctx.reply(`✗ Background task failed: ${errorMessage(error)}`))
        }
        const id = started && typeof started === 'object' && 'id' in started ? ` ${started.id}` : ''
        await ctx.reply(`Background task${id} started; its result will be shown here when it is done.`)
      },
    },
  ]
}
