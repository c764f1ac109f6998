// Plugins: `agent plugins install <npm package | path | git url>`, `update`, `remove`, `list`, and
// `/plugins`. Packages go to <agent_home>/plugins (an npm project), are checked before any of their
// code runs, load through the kernel's loader, and hot-swap in running agents (watch.ts).

import { join } from 'node:path'
import { defineExtension, EXTENSIONS_SERVICE, errorMessage, type CliContext, type ExtensionsService } from 'agent/sdk'
import { formatRows, pluginRows } from './list.ts'
import { install, installedDir, remove, update, type InstallResult, type PluginsContext } from './operations.ts'
import { watchPlugins } from './watch.ts'

interface PluginsConfig {
  npm_timeout_seconds: number
}

const json = { type: 'boolean' as const, describe: 'Print one JSON document' }

export default defineExtension<PluginsConfig>({
  name: 'plugins-cli',
  version: '1.0.0',
  description: 'agent plugins install/update/remove/list and /plugins',
  configKey: 'plugins',
  config: {
    type: 'object',
    properties: { npm_timeout_seconds: { type: 'number', exclusiveMinimum: 0, default: 300 } },
    additionalProperties: false,
  },
  setup(api) {
    const pluginsDir = join(api.settings.home, 'plugins')
    const context = (cwd: string, signal?: AbortSignal): PluginsContext => ({
      home: api.settings.home,
      pluginsDir,
      cwd,
      timeoutMs: api.config.npm_timeout_seconds * 1000,
      signal,
      extensions: api.services.require<ExtensionsService>(EXTENSIONS_SERVICE),
      log: api.log,
    })

    const report = (ctx: CliContext, result: InstallResult) => {
      const { record, loaded } = result
      const tools = ctx.tools.entries().filter((e) => loaded.some((l) => l.name === e.owner)).map((e) => e.value.name)
      if (result.upToDate) return ctx.out(`${record.name}@${record.version} is up to date`)
      const verb = result.updated ? (result.previousVersion && result.previousVersion !== record.version ? `updated ${record.name} ${result.previousVersion} → ${record.version}` : `updated ${record.name}@${record.version}`) : `installed ${record.name}@${record.version}`
      ctx.out(`${verb} (${record.kind}): ${loaded.map((l) => `extension "${l.name}" ${l.state}`).join(', ')}${tools.length ? `; tools: ${tools.join(', ')}` : ''}`)
    }
    const asJson = (ctx: CliContext, result: InstallResult) => {
      const tools = ctx.tools.entries().filter((e) => result.loaded.some((l) => l.name === e.owner)).map((e) => e.value.name)
      return { ...result.record, updated: result.updated, up_to_date: Boolean(result.upToDate), loaded: result.loaded.map(({ name, state, reason }) => ({ name, state, ...(reason ? { reason } : {}) })), tools }
    }

    api.commands.register({
      name: 'plugins',
      category: 'Plugins',
      description: 'Install, update, remove and list plugins',
      scope: 'both',
      slash(ctx) {
        return ctx.reply(formatRows(pluginRows(pluginsDir, api.extensions())))
      },
      cli: {
        subcommands: {
          install: {
            description: 'Install a plugin from npm, a local folder or a git URL (its manifest is checked before any of its code runs)',
            args: '<spec>',
            options: {
              link: { type: 'boolean', describe: 'Link a local folder instead of copying it (edits apply live)' },
              'allow-scripts': { type: 'boolean', describe: "Run the package's install scripts (off by default)" },
              json,
            },
            examples: [
              ['agent plugins install agent-plugin-weather', 'from the npm registry'],
              ['agent plugins install ./my-plugin', 'a copy of a local folder'],
              ['agent plugins install git+https://github.com/me/agent-plugin.git', 'from git'],
            ],
            async run(ctx) {
              const result = await install(context(process.cwd(), ctx.signal), String(ctx.argv.spec), { link: Boolean(ctx.argv.link), allowScripts: Boolean(ctx.argv['allow-scripts']) })
              if (ctx.argv.json) ctx.json(asJson(ctx, result))
              else report(ctx, result)
            },
          },
          update: {
            description: 'Fetch plugins again from where they came from and swap in changed ones',
            args: '[name]',
            options: { 'allow-scripts': { type: 'boolean', describe: "Run the package's install scripts" }, json },
            async run(ctx) {
              const results = await update(context(process.cwd(), ctx.signal), ctx.argv.name as string | undefined, { allowScripts: Boolean(ctx.argv['allow-scripts']) })
              if (ctx.argv.json) ctx.json(results.map((r) => ('error' in r ? r : asJson(ctx, r))))
              else if (results.length === 0) ctx.out('no plugins installed with agent plugins')
              for (const r of results) {
                if ('error' in r) ctx.err(`agent: ${r.name}: ${r.error}`)
                else if (!ctx.argv.json) report(ctx, r)
              }
              return results.some((r) => 'error' in r) ? 1 : 0
            },
          },
          remove: {
            description: 'Uninstall a plugin (by package or extension name)',
            args: '<name>',
            aliases: ['uninstall'],
            async run(ctx) {
              const removed = await remove(context(process.cwd(), ctx.signal), String(ctx.argv.name))
              ctx.out(`removed ${removed.name}`)
            },
          },
          list: {
            description: 'Installed plugins, where they came from, and the state of their extensions',
            options: { json },
            run(ctx) {
              const rows = pluginRows(pluginsDir, ctx.extensions())
              if (ctx.argv.json) ctx.json(rows)
              else ctx.out(formatRows(rows))
            },
          },
        },
      },
    })

    api.hooks.ready.tap(({ mode }) => {
      if (mode === 'command') return
      try {
        const stop = watchPlugins({
          pluginsDir,
          installedDir: (name) => installedDir(context(api.settings.home), name),
          extensions: api.services.require<ExtensionsService>(EXTENSIONS_SERVICE),
          log: api.log,
        })
        api.onDispose(stop)
      } catch (error) {
        api.log.warn(`plugins are not hot-loaded: ${errorMessage(error)}`)
      }
    })
  },
})
