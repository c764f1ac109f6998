// `agent mcp add|remove|list|test|configure|serve`. Servers live in config.yaml under `mcp_servers`;
// secret env values and auth headers given on the command line go to .env and are referenced as
// `${MCP_<SERVER>_<NAME>}`. `test` (and `add`) connect, list the tools and refresh the tool cache.

import { isSecretName, UsageError, type CliContext, type CliSubcommand, type Settings } from 'agent/sdk'
import { readCache, removeCache } from './cache.ts'
import { parseServer, rawServers, readServers, SERVER_NAME, type ServerConfig } from './config.ts'
import { removeAuth } from './oauth.ts'
import type { ProbeResult } from './probe.ts'
import { serve } from './serve.ts'

/** A probe result for --json: snake_case keys; `raw` is the server's own tool list, left as sent. */
function probeJson(result: ProbeResult) {
  if (!result.ok) return result
  const { serverInfo, snapshot: _snapshot, ...rest } = result
  return serverInfo ? { ...rest, server_info: serverInfo } : rest
}

export interface McpCliDeps {
  version: string
  /** Connects to the servers (by name), lists their tools and refreshes the cache. */
  probe(names: string[], settings: Settings): Promise<ProbeResult[]>
}

const json = { type: 'boolean' as const, describe: 'Print one JSON document' }

const envName = (server: string, name: string) => `MCP_${server}_${name}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_')
const SECRET_HEADER = /authorization|token|key|secret|cookie|password/i

function pairs(values: unknown, separator: string, what: string): Array<[string, string]> {
  const list = Array.isArray(values) ? values : values === undefined ? [] : [values]
  return list
    .filter((v) => v !== undefined)
    .map((raw) => {
      const text = String(raw)
      const at = text.indexOf(separator)
      if (at <= 0) throw new UsageError(`${what} "${text}" must look like NAME${separator}VALUE`)
      return [text.slice(0, at).trim(), text.slice(at + separator.length).trim()]
    })
}

/** Stores secret values in .env and returns what config.yaml keeps (the value or a ${VAR} reference). */
async function keepSecret(settings: Settings, server: string, key: string, value: string, secret: boolean): Promise<string> {
  if (!secret || /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value)) return value
  const variable = envName(server, key)
  await settings.setEnv(variable, value)
  return `\${${variable}}`
}

function describeTarget(config: ServerConfig): string {
  return config.transport === 'stdio' ? [config.command, ...config.args].join(' ') : config.url!
}

function printProbe(ctx: CliContext, result: ProbeResult): void {
  if (!result.ok) return void ctx.err(`agent: ${result.name}: ${result.error}`)
  ctx.out(`${result.name}: connected in ${result.ms} ms${result.serverInfo ? ` (${result.serverInfo.name} ${result.serverInfo.version})` : ''}, ${result.tools.length} tool${result.tools.length === 1 ? '' : 's'}`)
  for (const tool of result.tools) ctx.out(`  ${tool.bridged}${tool.allowed ? '' : ' (filtered out)'}  ${tool.description ?? ''}`.trimEnd())
}

export function mcpSubcommands(deps: McpCliDeps): Record<string, CliSubcommand> {
  return {
    add: {
      description: 'Add an MCP server: a stdio command (after --) or --url for streamable HTTP',
      args: '<name> [cmd..]',
      options: {
        url: { type: 'string', describe: 'Streamable HTTP endpoint of a remote server' },
        header: { type: 'array', describe: 'HTTP header "Name: value" (auth headers are stored in .env)' },
        env: { type: 'array', describe: 'Environment NAME=VALUE for a stdio server (secret-named values are stored in .env)' },
        cwd: { type: 'string', describe: 'Working directory of a stdio server' },
        timeout: { type: 'number', describe: 'Seconds a tool call may take (default 120)' },
        'connect-timeout': { type: 'number', describe: 'Seconds to connect (default 30)' },
        test: { type: 'boolean', default: true, describe: 'Connect and list the tools after adding (--no-test to skip)' },
        json,
      },
      examples: [
        ['agent mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/docs', 'a stdio server'],
        ['agent mcp add remote --url https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN"', 'a remote server'],
      ],
      async run(ctx) {
        const name = String(ctx.argv.name)
        if (!SERVER_NAME.test(name)) throw new UsageError(`server name "${name}" must be 1-32 letters, digits, "_" or "-"`)
        if (rawServers(ctx.settings)[name] !== undefined) throw new UsageError(`an MCP server named "${name}" exists (agent mcp configure ${name}, or remove it first)`)
        const command = [...((ctx.argv.cmd as unknown[]) ?? []), ...ctx.argv._.slice(2)].map(String)
        const url = ctx.argv.url as string | undefined
        if (command.length > 0 && url) throw new UsageError('give either a command (after --) or --url, not both')
        if (command.length === 0 && !url) throw new UsageError('give the server command after -- (stdio) or --url (streamable HTTP)')
        const raw: Record<string, unknown> = url ? { url } : { command: command[0], ...(command.length > 1 ? { args: command.slice(1) } : {}) }
        const envPairs = pairs(ctx.argv.env, '=', '--env')
        const headerPairs = pairs(ctx.argv.header, ':', '--header')
        if (url && envPairs.length) throw new UsageError('--env applies to stdio servers; use --header for a remote one')
        if (!url && headerPairs.length) throw new UsageError('--header applies to remote (--url) servers')
        if (ctx.argv.cwd) raw.cwd = String(ctx.argv.cwd)
        if (ctx.argv.timeout !== undefined) raw.timeout = Number(ctx.argv.timeout)
        if (ctx.argv['connect-timeout'] !== undefined) raw.connect_timeout = Number(ctx.argv['connect-timeout'])
        // Validate before anything is written.
        try {
          parseServer(name, { ...raw, env: Object.fromEntries(envPairs), headers: Object.fromEntries(headerPairs) })
        } catch (error) {
          throw new UsageError(`mcp_servers.${name}: ${(error as Error).message}`)
        }
        if (envPairs.length) {
          const env: Record<string, string> = {}
          for (const [k, v] of envPairs) env[k] = await keepSecret(ctx.settings, name, k, v, isSecretName(k))
          raw.env = env
        }
        if (headerPairs.length) {
          const headers: Record<string, string> = {}
          for (const [k, v] of headerPairs) headers[k] = await keepSecret(ctx.settings, name, `header_${k}`, v, SECRET_HEADER.test(k))
          raw.headers = headers
        }
        await ctx.settings.set(`mcp_servers.${name}`, raw)
        const results = ctx.argv.test === false ? [] : await deps.probe([name], ctx.settings)
        if (ctx.argv.json) return void ctx.json({ added: name, config: raw, test: results[0] ? probeJson(results[0]) : null })
        ctx.out(`added MCP server "${name}" (${url ? 'streamable HTTP' : 'stdio'}) to ${ctx.settings.configPath}`)
        for (const result of results) {
          if (result.ok) printProbe(ctx, result)
          else ctx.err(`warning: ${name} could not be reached: ${result.error} (saved anyway; fix it with agent mcp configure ${name} or agent mcp remove ${name})`)
        }
      },
    },
    remove: {
      description: 'Remove an MCP server (and the secrets `add` stored for it)',
      args: '<name>',
      async run(ctx) {
        const name = String(ctx.argv.name)
        const raw = rawServers(ctx.settings)[name] as Record<string, unknown> | undefined
        if (raw === undefined) throw new UsageError(`no MCP server named "${name}"`)
        await ctx.settings.set(`mcp_servers.${name}`, undefined)
        const refs = JSON.stringify(raw ?? {}).match(/\$\{(MCP_[A-Z0-9_]+)\}/g) ?? []
        const prefix = envName(name, '')
        for (const ref of refs) {
          const variable = ref.slice(2, -1)
          if (variable.startsWith(prefix)) await ctx.settings.setEnv(variable, undefined)
        }
        removeCache(ctx.settings.home, name)
        removeAuth(ctx.settings.home, name)
        ctx.out(`removed MCP server "${name}"`)
      },
    },
    list: {
      description: 'Configured MCP servers with their transport, state and cached tools',
      options: { json },
      run(ctx) {
        const rows = readServers(ctx.settings).map((entry) => {
          if (!entry.ok) return { name: entry.name, valid: false, reason: entry.reason }
          const { config } = entry
          const cache = readCache(ctx.settings.home, config.name)
          return {
            name: config.name,
            valid: true,
            transport: config.transport,
            target: describeTarget(config),
            enabled: config.enabled,
            timeout: config.timeoutMs / 1000,
            connect_timeout: config.connectTimeoutMs / 1000,
            tools: cache ? cache.tools.map((t) => t.name) : null,
            tools_seen_at: cache?.updated_at ?? null,
            ...(config.include ? { include: config.include } : {}),
            ...(config.exclude.length ? { exclude: config.exclude } : {}),
          }
        })
        if (ctx.argv.json) return void ctx.json(rows)
        if (rows.length === 0) return void ctx.out('no MCP servers (agent mcp add <name> -- <command>)')
        for (const r of rows as Array<Record<string, any>>) {
          if (!r.valid) ctx.out(`${r.name}  invalid: ${r.reason}`)
          else ctx.out(`${r.name}  ${r.transport}  ${r.enabled ? 'enabled' : 'disabled'}  ${r.tools ? `${r.tools.length} tools` : 'never connected'}  ${r.target}`)
        }
      },
    },
    test: {
      description: 'Connect to MCP servers (all, or one), list their tools and refresh the cache',
      args: '[name]',
      options: { json },
      async run(ctx) {
        const entries = readServers(ctx.settings)
        const name = ctx.argv.name as string | undefined
        if (name && !entries.some((e) => (e.ok ? e.config.name : e.name) === name)) throw new UsageError(`no MCP server named "${name}"`)
        const chosen = entries.filter((e) => !name || (e.ok ? e.config.name : e.name) === name)
        const invalid = chosen.filter((e): e is Extract<typeof e, { ok: false }> => !e.ok)
        const results: ProbeResult[] = [
          ...invalid.map((e) => ({ name: e.name, ok: false as const, error: `invalid configuration: ${e.reason}` })),
          ...(await deps.probe(chosen.filter((e) => e.ok).map((e) => (e as { config: ServerConfig }).config.name), ctx.settings)),
        ]
        if (ctx.argv.json) ctx.json(results.map(probeJson))
        else if (results.length === 0) ctx.out('no MCP servers configured')
        else for (const r of results) printProbe(ctx, r)
        return results.every((r) => r.ok) ? 0 : 1
      },
    },
    configure: {
      description: 'Change an MCP server: enable/disable, timeouts, tool filters, env and headers',
      args: '<name>',
      options: {
        enable: { type: 'boolean', describe: 'Use the server' },
        disable: { type: 'boolean', describe: 'Keep it configured but unused' },
        timeout: { type: 'number', describe: 'Seconds a tool call may take' },
        'connect-timeout': { type: 'number', describe: 'Seconds to connect' },
        include: { type: 'array', describe: 'Offer only these tools' },
        exclude: { type: 'array', describe: 'Never offer these tools' },
        'clear-filters': { type: 'boolean', describe: 'Remove include/exclude filters' },
        env: { type: 'array', describe: 'Set environment NAME=VALUE (stdio)' },
        'unset-env': { type: 'array', describe: 'Remove an environment variable (stdio)' },
        header: { type: 'array', describe: 'Set a header "Name: value" (HTTP)' },
        json,
      },
      async run(ctx) {
        const name = String(ctx.argv.name)
        const current = rawServers(ctx.settings)[name] as Record<string, any> | undefined
        if (current === undefined) throw new UsageError(`no MCP server named "${name}"`)
        if (ctx.argv.enable && ctx.argv.disable) throw new UsageError('--enable and --disable together')
        const next: Record<string, any> = structuredClone(current ?? {})
        let changed = false
        const set = (key: string, value: unknown) => {
          changed = true
          if (value === undefined) delete next[key]
          else next[key] = value
        }
        if (ctx.argv.enable) set('enabled', undefined)
        if (ctx.argv.disable) set('enabled', false)
        if (ctx.argv.timeout !== undefined) set('timeout', Number(ctx.argv.timeout))
        if (ctx.argv['connect-timeout'] !== undefined) set('connect_timeout', Number(ctx.argv['connect-timeout']))
        const list = (v: unknown) => (Array.isArray(v) ? v.filter((x) => x !== undefined).map(String) : [])
        if (ctx.argv['clear-filters']) set('tools', undefined)
        if (list(ctx.argv.include).length) set('tools', { ...(next.tools ?? {}), include: list(ctx.argv.include) })
        if (list(ctx.argv.exclude).length) set('tools', { ...(next.tools ?? {}), exclude: list(ctx.argv.exclude) })
        for (const [k, v] of pairs(ctx.argv.env, '=', '--env')) set('env', { ...(next.env ?? {}), [k]: await keepSecret(ctx.settings, name, k, v, isSecretName(k)) })
        const forget: string[] = []
        for (const k of list(ctx.argv['unset-env'])) {
          const env = { ...(next.env ?? {}) }
          if (!(k in env)) throw new UsageError(`mcp_servers.${name} has no env variable "${k}"`)
          // The secret `add`/`--env` stored for it goes from .env too (only our own MCP_<SERVER>_ ones).
          const ref = /^\$\{(MCP_[A-Z0-9_]+)\}$/.exec(String(env[k]))?.[1]
          if (ref && ref.startsWith(envName(name, ''))) forget.push(ref)
          delete env[k]
          set('env', Object.keys(env).length ? env : undefined)
        }
        for (const [k, v] of pairs(ctx.argv.header, ':', '--header')) set('headers', { ...(next.headers ?? {}), [k]: await keepSecret(ctx.settings, name, `header_${k}`, v, SECRET_HEADER.test(k)) })
        let parsed: ServerConfig
        try {
          parsed = parseServer(name, next)
        } catch (error) {
          throw new UsageError(`mcp_servers.${name}: ${(error as Error).message}`)
        }
        if (changed) await ctx.settings.set(`mcp_servers.${name}`, next)
        for (const variable of forget) await ctx.settings.setEnv(variable, undefined)
        if (ctx.argv.json) return void ctx.json({ name, changed, config: next })
        ctx.out(`${changed ? 'updated' : 'unchanged'}: ${name}  ${parsed.transport}  ${parsed.enabled ? 'enabled' : 'disabled'}  timeout ${parsed.timeoutMs / 1000}s  connect ${parsed.connectTimeoutMs / 1000}s${parsed.include ? `  include ${parsed.include.join(',')}` : ''}${parsed.exclude.length ? `  exclude ${parsed.exclude.join(',')}` : ''}`)
        if (changed) ctx.out('running chats pick this up with /reload-mcp')
      },
    },
    login: {
      description: 'Authorize the agent with a remote MCP server (OAuth; tokens kept in <agent_home>/mcp/auth, 0600)',
      args: '<name>',
      options: { timeout: { type: 'number', default: 300, describe: 'Seconds to wait for the authorization' } },
      async run(ctx) {
        const name = String(ctx.argv.name)
        const entry = readServers(ctx.settings).find((e) => (e.ok ? e.config.name : e.name) === name)
        if (!entry) throw new UsageError(`no MCP server named "${name}"`)
        if (!entry.ok) throw new UsageError(`mcp_servers.${name}: ${entry.reason}`)
        if (entry.config.transport === 'stdio') throw new UsageError(`"${name}" is a stdio server; OAuth applies to remote (--url) servers`)
        const timeout = Number(ctx.argv.timeout)
        if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout must be a positive number of seconds')
        const { login } = await import('./login.ts')
        const outcome = await login(ctx.settings, entry.config, (line) => ctx.out(line), timeout * 1000, deps.version)
        ctx.out(outcome === 'already' ? `"${name}" lets the agent in already; nothing to authorize` : `authorized with "${name}"`)
        const [result] = await deps.probe([name], ctx.settings)
        if (result) printProbe(ctx, result)
        return result?.ok === false ? 1 : 0
      },
    },
    logout: {
      description: 'Forget the OAuth tokens and client registration kept for a remote MCP server',
      args: '<name>',
      run(ctx) {
        const name = String(ctx.argv.name)
        if (rawServers(ctx.settings)[name] === undefined) throw new UsageError(`no MCP server named "${name}"`)
        removeAuth(ctx.settings.home, name)
        ctx.out(`forgot the authorization of "${name}"`)
      },
    },
    serve: {
      description: "Expose the agent's own tools as an MCP server over stdio",
      stdio: 'protocol',
      options: {
        toolsets: { type: 'string', describe: 'Comma list of toolsets to expose (default: every enabled tool)' },
        'include-mcp': { type: 'boolean', describe: 'Also expose tools bridged from other MCP servers' },
      },
      async run(ctx) {
        const toolsets = typeof ctx.argv.toolsets === 'string' ? ctx.argv.toolsets.split(',').map((s) => s.trim()).filter(Boolean) : undefined
        await ctx.start('command')
        await serve(ctx, { toolsets, includeMcp: Boolean(ctx.argv['include-mcp']), cwd: process.cwd() }, deps.version)
      },
    },
  }
}
