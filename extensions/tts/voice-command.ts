// `/voice`. In a gateway chat: `/voice off|voice_only|all` sets how that chat's replies are spoken
// (stored), `/voice` alone says the current mode. In the CLI chat: push-to-talk in two presses, the
// first starts recording from the microphone, the second transcribes it with the `stt` service and
// sends the text as the next prompt (recorder.ts).

import { VOICE_MODES, type CommandDefinition, type Services, type VoiceMode, type VoiceModes } from 'agent/sdk'

const EXPLAIN: Record<VoiceMode, string> = {
  off: 'replies are text only',
  voice_only: 'replies to voice messages are spoken too (audio first, then the text)',
  all: 'every reply is spoken too (audio first, then the text)',
}

export function voiceCommand(modes: VoiceModes, services: Services): CommandDefinition {
  return {
    name: 'voice',
    category: 'Session',
    description: 'Voice replies in this chat (off, voice_only, all); in the CLI, speak a prompt',
    argsHint: '[off|voice_only|all]',
    async slash(ctx) {
      if (ctx.surface === 'cli') {
        const { recordPrompt } = await import('./recorder.ts')
        return recordPrompt(ctx, services)
      }
      if (!ctx.source) return void (await ctx.reply('/voice works in a chat.'))
      const arg = ctx.args.trim().toLowerCase().replace(/-/g, '_')
      if (!arg) {
        const mode = await modes.get(ctx.source)
        return void (await ctx.reply(`Voice mode: ${mode} (${EXPLAIN[mode]}). Change it with /voice off, /voice voice_only or /voice all.`))
      }
      const mode = (arg === 'on' ? 'voice_only' : arg) as VoiceMode
      if (!VOICE_MODES.includes(mode)) return void (await ctx.reply(`/voice: "${ctx.args.trim()}" is not a mode; use off, voice_only or all.`))
      await modes.set(ctx.source, mode)
      await ctx.reply(`Voice mode: ${mode} (${EXPLAIN[mode]}).`)
    },
  }
}
