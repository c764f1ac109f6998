// `/rollback` (list), `/rollback <N>` (restore, after a pre-restore snapshot) and
// `/rollback diff <N>`, on the CLI and in gateway chats.

import { errorMessage, type CommandDefinition } from 'agent/sdk'
import type { CheckpointStore, Snapshot } from './store.ts'

function age(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000))
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.round(s / 60)}m ago`
  if (s < 86400) return `${Math.round(s / 3600)}h ago`
  return `${Math.round(s / 86400)}d ago`
}

const line = (s: Snapshot) => `  ${s.number}. ${s.hash.slice(0, 8)}  ${age(s.time)}  ${s.reason}`

export interface RollbackDeps {
  store: () => CheckpointStore
  workDir: (sessionId: string | undefined, surface: 'cli' | 'gateway') => string | undefined
  /**
   * Known secrets out of a reply (undefined: they cannot be read). Every reply passes through it:
   * file names in a diff, the directory, and reasons recorded before redaction can hold one.
   */
  redact: (text: string) => string | undefined
}

const WITHHELD = 'Rollback: the agent’s secrets could not be read, so this answer is withheld.'

export function rollbackCommand(deps: RollbackDeps): CommandDefinition {
  return {
    name: 'rollback',
    category: 'Safety',
    description: 'List checkpoints, or restore one (a snapshot of the current state is taken first)',
    argsHint: '[N | diff N]',
    scope: 'both',
    async slash(ctx) {
      const reply = (text: string) => ctx.reply(deps.redact(text) ?? WITHHELD)
      const sessionId = (ctx.chat as { sessionId?: string } | undefined)?.sessionId
      const dir = deps.workDir(sessionId, ctx.surface)
      if (!dir) return void (await reply('No checkpoints yet: none has been taken in this conversation.'))
      const store = deps.store()
      const words = ctx.args.split(/\s+/).filter(Boolean)
      try {
        if (words.length === 0) {
          const snapshots = await store.list(dir)
          if (snapshots.length === 0) return void (await reply(`No checkpoints for ${dir}.`))
          return void (await reply([`Checkpoints of ${dir} (newest first):`, ...snapshots.map(line), 'Restore one with /rollback <N>.'].join('\n')))
        }
        if (words[0] === 'diff' && words.length === 2 && /^\d+$/.test(words[1]!)) {
          const stat = await store.diff(dir, Number(words[1]))
          const lines = stat ? stat.split('\n') : []
          return void (await reply(lines.length ? [...lines.slice(0, 80), ...(lines.length > 80 ? [`… ${lines.length - 80} more lines`] : [])].join('\n') : 'No differences.'))
        }
        if (words.length !== 1 || !/^\d+$/.test(words[0]!)) return void (await reply('Usage: /rollback, /rollback <N>, /rollback diff <N>'))
        const { restored, undo } = await store.restore(dir, Number(words[0]))
        await reply(`Restored ${dir} to checkpoint ${restored.hash.slice(0, 8)} (${restored.reason}). The state before it is checkpoint 1 (${undo.hash.slice(0, 8)}): /rollback 1 undoes this.`)
      } catch (error) {
        await reply(`Rollback failed: ${errorMessage(error)}`)
      }
    },
  }
}
