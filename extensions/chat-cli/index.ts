// `agent chat` (and bare `agent`): one-shot with -q or a piped prompt (one-shot.ts); interactive
// chat in a terminal. Flags follow the spec: -c [name], --resume, -s/--skills, --provider, -w,
// --checkpoints, plus --model, --personality and --json.

import { defineExtension, UsageError, type CliContext } from 'agent/sdk'
import { DISPLAY_SETTINGS } from './settings-schema.ts'

function chatOptions(ctx: CliContext, query: string) {
  const argv = ctx.argv
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
  // yargs gives `[undefined]` for an array option that was not passed.
  const skills = ([] as unknown[]).concat(argv.skills ?? []).filter((s) => s !== undefined && s !== null).flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean)
  // -c is an array option: an optional value that may be a title of several words. A string option
  // would lose a bare `-c` (the CLI derives options with `default: undefined`, which yargs reads as absent).
  const words = ([] as unknown[]).concat(argv.continue ?? []).filter((w) => w !== undefined && w !== null)
  const continued = Array.isArray(argv.continue) && (argv.continue.length === 0 || words.length > 0) ? words.map(String).join(' ') : undefined
  const extra: Record<string, unknown> = {}
  if (argv.checkpoints) extra.checkpoints = true
  if (argv.worktree) extra.worktree = true
  return {
    query,
    json: Boolean(argv.json),
    quiet: Boolean(argv.quiet),
    ...(continued !== undefined ? { continueName: continued } : {}),
    ...(argv.resume !== undefined ? { resume: String(argv.resume) } : {}),
    provider: str(argv.provider),
    model: str(argv.model),
    personality: str(argv.personality),
    skills,
    extra,
  }
}

export default defineExtension({
  name: 'chat-cli',
  version: '1.0.0',
  description: 'agent chat: one-shot (-q or stdin) and interactive chat',
  settings: DISPLAY_SETTINGS,
  setup(api) {
    api.commands.register({
      name: 'chat',
      category: 'Chat',
      description: 'Chat with the agent (interactive in a terminal; -q for one turn)',
      cli: {
        options: {
          query: { type: 'string', alias: 'q', describe: 'Run one turn with this prompt, print the answer and exit' },
          json: { type: 'boolean', describe: 'With -q: print {session_id, answer, exit_reason, usage, api_calls, last_reasoning, tool_calls}; tool lines on stderr become JSON lines' },
          quiet: { type: 'boolean', describe: 'With -q: no tool-call lines on stderr' },
          continue: { type: 'array', alias: 'c', describe: 'Continue the latest CLI session, or the one with this title: -c [name]' },
          resume: { type: 'string', alias: 'r', describe: 'Resume a session by id or title' },
          provider: { type: 'string', describe: 'Provider for this chat (name or alias)' },
          model: { type: 'string', alias: 'm', describe: 'Model for this chat' },
          skills: { type: 'array', alias: 's', describe: 'Preload skills (names, repeatable or comma-separated)' },
          personality: { type: 'string', describe: 'Personality overlay (a key of `personalities` in config.yaml)' },
          worktree: { type: 'boolean', alias: 'w', describe: 'Run in an isolated git worktree' },
          checkpoints: { type: 'boolean', describe: 'Snapshot files before file-modifying tool calls' },
        },
        examples: [
          ['agent chat -q "summarise README.md"', 'one turn, answer on stdout'],
          ['agent chat -q "…" --json', 'one JSON document with the answer, usage and exit reason'],
          ['echo "…" | agent chat', 'the prompt from stdin'],
          ['agent -c "my project"', 'continue the session titled "my project"'],
        ],
        async run(ctx: CliContext) {
          const { runOneShot, readPipedPrompt } = await import('./one-shot.ts')
          if (typeof ctx.argv.query === 'string') {
            if (!ctx.argv.query.trim()) throw new UsageError('-q needs a prompt')
            return runOneShot(ctx, chatOptions(ctx, ctx.argv.query))
          }
          if (ctx.argv.query !== undefined) throw new UsageError('-q needs a prompt')
          if (!process.stdin.isTTY) {
            const prompt = await readPipedPrompt(process.stdin)
            if (!prompt) throw new UsageError('no prompt: pass -q "<prompt>" or pipe one on stdin (interactive chat needs a terminal)')
            return runOneShot(ctx, chatOptions(ctx, prompt))
          }
          if (ctx.argv.json) throw new UsageError('--json needs -q "<prompt>" (or a prompt on stdin)')
          if (!ctx.isTTY) throw new UsageError('interactive chat needs a terminal; use -q "<prompt>" or pipe the prompt on stdin')
          const { runInteractive } = await import('./interactive.ts')
          const o = chatOptions(ctx, '')
          return runInteractive(ctx, {
            ...(o.continueName !== undefined ? { continue: o.continueName || true } : {}),
            ...(o.resume !== undefined ? { resume: o.resume } : {}),
            worktree: Boolean(ctx.argv.worktree),
            checkpoints: Boolean(ctx.argv.checkpoints),
            skills: o.skills,
            provider: o.provider,
            model: o.model,
            personality: o.personality,
            start: () => ctx.start('chat'),
          })
        },
      },
    })
  },
})
