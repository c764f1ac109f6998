// `agent config show|get|set|migrate|path`: read and write config.yaml (comments and layout kept)
// and .env (keys that hold secrets, mode 0600).

import {
  CONFIG_MIGRATION_SERVICE, ConfigError, defineExtension, envSwitchOn, EXTENSIONS_SERVICE, isSecretName, UsageError, type CliContext, type ConfigMigrationService, type ExtensionsService,
} from 'agent/sdk'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'
import { redactConfig } from './redact-config.ts'

/** A value typed on the command line: YAML scalars (numbers, booleans, null, lists) keep their type. */
export function parseValue(text: string): unknown {
  try {
    return parseYaml(text)
  } catch {
    return text
  }
}

/** `OPENAI_API_KEY`-style names are environment variables and go to .env. */
const isEnvName = (key: string) => /^[A-Z][A-Z0-9_]*$/.test(key)

/** Refuses (exit 2, nothing written) a value the owning extension's config schema rejects. */
function assertValid(ctx: CliContext, key: string, value: unknown): void {
  const problems = ctx.services.get<ExtensionsService>(EXTENSIONS_SERVICE)?.checkSetting(key, value) ?? []
  if (problems.length) throw new ConfigError(`${problems.join('; ')}; ${ctx.settings.configPath} was not changed`)
}

export default defineExtension({
  name: 'config-cli',
  version: '1.0.0',
  setup(api) {
    api.commands.register({
      name: 'config',
      category: 'Configuration',
      description: 'Show and change configuration (config.yaml and .env)',
      cli: {
        subcommands: {
          show: {
            description: 'Print the configuration (secrets masked)',
            options: { json: { type: 'boolean', describe: 'Print one JSON document' } },
            run(ctx: CliContext) {
              const all = redactConfig(ctx.settings.all())
              if (ctx.argv.json) ctx.json(all)
              else ctx.out(`# ${ctx.settings.configPath}\n${Object.keys(all).length ? stringifyYaml(all) : '(empty)'}`)
            },
          },
          get: {
            description: 'Print one value by dot path (or an environment variable name)',
            args: '<key>',
            options: { json: { type: 'boolean', describe: 'Print the value as JSON' } },
            run(ctx: CliContext) {
              const key = String(ctx.argv.key)
              const value = isEnvName(key) ? ctx.settings.env(key) : ctx.settings.get(key)
              if (value === undefined) {
                ctx.err(`agent: ${key} is not set`)
                return 1
              }
              const shown = isEnvName(key) && isSecretName(key) ? '***' : value
              if (ctx.argv.json) ctx.json(shown)
              else ctx.out(typeof shown === 'object' ? stringifyYaml(shown).trimEnd() : String(shown))
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
              if (key.startsWith('_config_version')) throw new UsageError('_config_version is managed by `agent config migrate`')
              const value = parseValue(raw)
              assertValid(ctx, key, value)
              await ctx.settings.set(key, value)
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
