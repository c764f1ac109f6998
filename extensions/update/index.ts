// `agent update [--check] [--json]`: check for a newer agent (git remote of a checkout, else the npm
// registry) and apply it, reporting what changed; `/update` checks from a chat and says how to
// apply (updating the code of a running gateway from a chat message is not offered).

import { fileURLToPath } from 'node:url'
import { defineExtension, errorMessage, type CliContext, type Settings } from 'agent/sdk'

/** The agent's own folder: built-in extensions live in <root>/extensions/<name>/. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** npm runs with the environment the agent sees (registry settings, proxies, HOME). */
function npmEnv(settings: Settings): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of ['PATH', 'HOME', 'USER', 'TMPDIR', 'npm_config_registry', 'NPM_CONFIG_REGISTRY', 'npm_config_userconfig', 'NPM_CONFIG_USERCONFIG', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy']) {
    const value = settings.env(name)
    if (value !== undefined) env[name] = value
  }
  return env
}

export default defineExtension<{ source: 'auto' | 'git' | 'npm' }>({
  name: 'update',
  version: '1.0.0',
  description: 'agent update and /update',
  configKey: 'update',
  config: {
    type: 'object',
    properties: { source: { enum: ['auto', 'git', 'npm'], default: 'auto', description: 'auto: the git remote of a checkout with an upstream, else the npm registry' } },
    additionalProperties: false,
  },
  setup(api) {
    const check = async () => {
      const { checkGit, checkNpm, sourceOf } = await import('./sources.ts')
      const source = api.config.source === 'auto' ? await sourceOf(ROOT) : api.config.source
      return source === 'git' ? checkGit(ROOT) : checkNpm(ROOT, npmEnv(api.settings))
    }
    api.commands.register({
      name: 'update',
      category: 'Info',
      description: 'Check for a newer agent and apply it, reporting what changed',
      async slash(ctx) {
        try {
          const c = await check()
          if (!c.available) return void (await ctx.reply(`The agent is up to date (${c.source} ${c.current}).`))
          const list = c.changes.slice(0, 10).map((l) => `  ${l}`).join('\n')
          await ctx.reply(`An update is available (${c.source} ${c.current} → ${c.latest}):\n${list}${c.changes.length > 10 ? `\n  … ${c.changes.length - 10} more` : ''}\nApply it with \`agent update\` in a terminal, then restart.`)
        } catch (error) {
          await ctx.reply(`✗ Could not check for updates: ${errorMessage(error)}`)
        }
      },
      cli: {
        options: {
          check: { type: 'boolean', describe: 'Only check; change nothing' },
          json: { type: 'boolean', describe: 'Print one JSON document' },
        },
        async run(ctx: CliContext) {
          const { applyGit, applyNpm } = await import('./sources.ts')
          let c
          try {
            c = await check()
          } catch (error) {
            if (ctx.argv.json) ctx.json({ ok: false, error: `could not check for updates: ${errorMessage(error)}` })
            else ctx.err(`agent: could not check for updates: ${errorMessage(error)}`)
            return 1
          }
          if (!c.available || ctx.argv.check) {
            if (ctx.argv.json) ctx.json({ ok: true, ...c, applied: false })
            else if (!c.available) ctx.out(`up to date (${c.source} ${c.current})`)
            else ctx.out(`update available (${c.source} ${c.current} → ${c.latest}):\n${c.changes.map((l) => `  ${l}`).join('\n')}\nrun \`agent update\` to apply it`)
            return 0
          }
          try {
            const r = c.source === 'git' ? await applyGit(ROOT) : await applyNpm(ROOT, npmEnv(ctx.settings), c.latest)
            if (ctx.argv.json) ctx.json({ ok: true, source: c.source, applied: true, ...r })
            else ctx.out(`updated ${r.from} → ${r.to}:\n${r.changes.map((l) => `  ${l}`).join('\n')}${r.notes.length ? `\n${r.notes.join('\n')}` : ''}\nrestart running agents (and \`agent gateway restart\`) to use it`)
            return 0
          } catch (error) {
            if (ctx.argv.json) ctx.json({ ok: false, error: `update failed: ${errorMessage(error)}` })
            else ctx.err(`agent: update failed, nothing changed: ${errorMessage(error)}`)
            return 1
          }
        },
      },
    })
  },
})
