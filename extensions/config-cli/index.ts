// `agent config show|get|set|unset|migrate|path`: read and write config.yaml (comments and layout
// kept) and .env (keys that hold secrets, mode 0600); values checked against their owner's schema.

import {
  closestNames, CONFIG_MIGRATION_SERVICE, CONFIG_SERVICE, ConfigError, defineExtension, envSwitchOn, EXTENSIONS_SERVICE, staleAllowlistEntries, UsageError, type CliContext, type ConfigMigrationService, type ConfigService, type ExtensionsService,
} from 'agent/sdk'
import { stringify as stringifyYaml } from 'yaml'
import { coerceValue } from './coerce.ts'
import { EffectiveConfig } from './effective.ts'
import { redactEnvValue } from './redact-config.ts'

/** `OPENAI_API_KEY`-style names are environment variables and go to .env. */
const isEnvName = (key: string) => /^[A-Z][A-Z0-9_]*$/.test(key)

/** What setting a value needs: the settings, the services, and where a note goes. */
type SetContext = Pick<CliContext, 'settings' | 'services' | 'err'>

const extensionsOf = (ctx: Pick<CliContext, 'services'>) => ctx.services.get<ExtensionsService>(EXTENSIONS_SERVICE)

/** Refuses (exit 2, nothing written) a value the owning extension's config schema rejects. */
function assertValid(ctx: SetContext, key: string, value: unknown): void {
  const problems = extensionsOf(ctx)?.checkSetting(key, value) ?? []
  if (problems.length) throw new ConfigError(`${problems.join('; ')}; ${ctx.settings.configPath} was not changed`)
}

/**
 * A key under a top-level section nothing reads: refused when it is a near miss of one that is read
 * (`aprovals.mode`), saved with a note otherwise (a plugin not installed yet may read it).
 */
function checkSection(ctx: SetContext, key: string): void {
  const top = key.split('.')[0]!
  const tops = [...new Set((extensionsOf(ctx)?.settingSections() ?? []).map((s) => s.split('.')[0]!))]
  if (tops.length === 0 || tops.includes(top) || ctx.settings.get(top) !== undefined) return
  const near = closestNames(top, tops)[0]
  if (near) throw new ConfigError(`${key}: no extension reads "${top}" (did you mean "${near}"?); ${ctx.settings.configPath} was not changed`)
  ctx.err(`agent: note: no loaded extension reads "${top}"; saved as given`)
}

/** `agent config set` for a config.yaml key: coerced, checked, written with comments kept; the value written. */
async function setConfigKey(ctx: SetContext, key: string, raw: string): Promise<unknown> {
  if (key.startsWith('_config_version')) throw new UsageError('_config_version is managed by `agent config migrate`')
  checkSection(ctx, key)
  const value = coerceValue(raw, extensionsOf(ctx)?.settingSchema(key))
  assertValid(ctx, key, value)
  await ctx.settings.set(key, value)
  // A retired approval key is saved as typed (it matches nothing, so nothing opens), but not silently.
  if (key === 'approvals' || key.startsWith('approvals.allowlist')) {
    for (const stale of staleAllowlistEntries(ctx.settings.get('approvals.allowlist'))) ctx.err(`agent: note: approvals.allowlist: ${stale.problem}; ${stale.fix}`)
  }
  return value
}

export default defineExtension({
  name: 'config-cli',
  version: '1.0.0',
  setup(api) {
    // The same view and the same checked write for other surfaces (the dashboard's Settings page).
    api.services.provide<ConfigService>(CONFIG_SERVICE, {
      effective: () => new EffectiveConfig(api.settings, extensionsOf(api)).entries(),
      async set(key, raw) {
        if (isEnvName(key)) throw new UsageError(`${key} is a variable (.env): set it with \`agent config set\` in a terminal`)
        return setConfigKey({ settings: api.settings, services: api.services, err: (line) => api.log.info(line) }, key, raw)
      },
    })
    api.commands.register({
      name: 'config',
      category: 'Configuration',
      description: 'Show and change configuration (config.yaml and .env)',
      cli: {
        subcommands: {
          show: {
            description: 'Print the settings in effect: config.yaml over the defaults (marked), secrets masked',
            options: { json: { type: 'boolean', describe: 'Print one JSON document: {config_path, settings: [{key, value, source}]}' } },
            run(ctx: CliContext) {
              const effective = new EffectiveConfig(ctx.settings, extensionsOf(ctx))
              if (ctx.argv.json) ctx.json({ config_path: ctx.settings.configPath, settings: effective.entries() })
              else if (Object.keys(effective.tree).length === 0) ctx.out(`# ${ctx.settings.configPath}\n(empty)`)
              else ctx.out(`# ${ctx.settings.configPath} ("# default": not set there, the owning extension's default)\n${effective.yaml().trimEnd()}`)
            },
          },
          get: {
            description: 'Print the value in effect by dot path (its default when unset), or an environment variable',
            args: '<key>',
            options: { json: { type: 'boolean', describe: 'Print {key, value, source} as JSON (source: config, project, default or env)' } },
            run(ctx: CliContext) {
              const key = String(ctx.argv.key)
              let value: unknown
              let source: string
              if (isEnvName(key)) {
                const raw = ctx.settings.env(key)
                value = raw === undefined ? undefined : redactEnvValue(key, raw, ctx.settings)
                source = 'env'
              } else {
                const effective = new EffectiveConfig(ctx.settings, extensionsOf(ctx))
                value = effective.get(key)
                source = effective.source(key)
              }
              if (value === undefined) {
                ctx.err(`agent: ${key} is not set and has no default`)
                return 1
              }
              if (ctx.argv.json) return ctx.json({ key, value, source })
              ctx.out(typeof value === 'object' && value !== null ? stringifyYaml(value).trimEnd() : String(value))
              if (source === 'default') ctx.err(`agent: ${key} is not set in ${ctx.settings.configPath}; this is its default`)
              if (source === 'env' && !isEnvName(key)) ctx.err(`agent: ${key} comes from the environment, which wins over ${ctx.settings.configPath}`)
            },
          },
          set: {
            description: 'Set a value by dot path; secret-holding variables (FOO_API_KEY …) go to .env',
            args: '<key> <value>',
            examples: [
              ['agent config set model.default gpt-4o', 'set the default model in config.yaml'],
              ['agent config set OPENAI_API_KEY sk-…', 'store a key in .env (mode 0600)'],
            ],
            async run(ctx: CliContext) {
              const key = String(ctx.argv.key)
              const raw = String(ctx.argv.value)
              if (isEnvName(key)) {
                await ctx.settings.setEnv(key, raw)
                ctx.out(`saved ${key} to ${ctx.settings.envPath}`)
                return
              }
              await setConfigKey(ctx, key, raw)
              ctx.out(`saved ${key} to ${ctx.settings.configPath}`)
            },
          },
          unset: {
            description: 'Remove a value (or an environment variable from .env)',
            args: '<key>',
            async run(ctx: CliContext) {
              const key = String(ctx.argv.key)
              if (isEnvName(key)) await ctx.settings.setEnv(key, undefined)
              else {
                assertValid(ctx, key, undefined)
                await ctx.settings.set(key, undefined)
              }
              ctx.out(`removed ${key}`)
            },
          },
          path: {
            description: 'Print where config.yaml and .env live',
            run(ctx: CliContext) {
              ctx.out(`config: ${ctx.settings.configPath}\nenv:    ${ctx.settings.envPath}\nhome:   ${ctx.settings.home}`)
            },
          },
          migrate: {
            description: 'Bring config.yaml to the current config version, asking only for what a switched-on feature needs',
            async run(ctx: CliContext) {
              const migration = ctx.services.get<ConfigMigrationService>(CONFIG_MIGRATION_SERVICE)
              if (!migration) throw new UsageError('config migration is not available')
              // Without a terminal (or in CI) it says what it would ask, in one line, and succeeds: never a blocked script.
              const interactive = ctx.isTTY && !envSwitchOn(ctx.settings.env('CI'))
              const current = await migration.check(interactive, ctx.err, { stamp: true })
              ctx.out(current ? 'config is current' : 'config is not current: answer the questions above in a terminal, or set them with `agent config set`')
            },
          },
        },
      },
    })
  },
})
