// The types extension authors write against: the extension contract, the per-extension API, and the
// shapes of the things kept in the kernel's registries (commands, tools, providers, adapters, endpoints).
// Runtime shapes (model requests, runs) live in ./model.ts; hook payloads in ./hooks.ts.

import type { Context as KoaContext, Next as KoaNext } from 'koa'
import type { HookHandles } from './hooks.ts'
import type { ModelClient } from './model.ts'
import type { ChatConversation } from './chat.ts'
import type { SecretEntry } from './secrets/index.ts'
import type { PlanEntry } from './plan.ts'

export type JsonSchema = { [key: string]: unknown }
export type Dispose = () => void | Promise<void>

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

// ---------------------------------------------------------------------------------------------
// Extensions

export interface ExtensionDefinition<C = Record<string, unknown>> {
  /** kebab-case; equals the folder name, the tap name and the log prefix. */
  name: string
  version?: string
  description?: string
  /** Extensions that must be loaded before this one; checked before setup. */
  dependsOn?: string[]
  /** Dot path of this extension's section in config.yaml; default `extensions.<name>`. */
  configKey?: string
  /** JSON Schema of that section. Validated (defaults applied) before setup; the result is `api.config`. */
  config?: JsonSchema
  /**
   * Other config.yaml sections this extension reads where it uses them, through `api.settings`
   * (dot path → JSON Schema), e.g. `display` for the chat. Not validated at load (the reader checks
   * what it reads); `agent config set` coerces and validates a value against them, and
   * `agent config show` fills in their defaults.
   */
  settings?: Readonly<Record<string, JsonSchema>>
  /** Milliseconds setup may take before the extension is marked failed (default 10 000). */
  setupTimeoutMs?: number
  /**
   * Tools this extension guards (a `beforeToolCall` check). Static, so it is known even when the config
   * is invalid: whenever this extension is not loaded (bad config, setup error, disabled, unloaded), the
   * kernel refuses these tools with a one-line reason instead of letting them run unguarded.
   */
  guards?: { tools: readonly string[] }
  /** Registers things. May be async; may return a dispose function. Heavy libraries belong in `await import()`. */
  setup(api: ExtensionApi<C>): void | Dispose | Promise<void | Dispose>
}

export type ExtensionSource = 'builtin' | 'user' | 'plugin' | 'project'
export type ExtensionState = 'loaded' | 'failed' | 'disabled'

export interface ExtensionInfo {
  name: string
  version: string
  source: ExtensionSource
  state: ExtensionState
  /** Why it failed or is disabled. */
  reason?: string
  /** What to do about it (failed or disabled). */
  fix?: string
  /** Tools it guards (ExtensionDefinition.guards): they refuse while it is not loaded. */
  guards?: string[]
  /** Folder or entry file it was loaded from. */
  path: string
}

/** The API an extension receives. Every registration is tagged with the extension as owner. */
export interface ExtensionApi<C = Record<string, unknown>> {
  readonly name: string
  readonly version: string
  /** This extension's validated, frozen config section. */
  readonly config: Readonly<C>
  readonly log: Logger
  /** Aborted when the extension is unloaded (hot reload, shutdown). */
  readonly signal: AbortSignal
  /** Disposers run LIFO on unload. */
  onDispose(fn: Dispose): void
  /** The agent's data directory and global configuration. */
  readonly settings: Settings
  readonly tools: RegistryHandle<ToolDefinition>
  readonly providers: RegistryHandle<ProviderDefinition>
  readonly commands: RegistryHandle<CommandDefinition>
  readonly adapters: RegistryHandle<AdapterDefinition>
  readonly endpoints: RegistryHandle<EndpointDefinition>
  readonly services: Services
  readonly hooks: HookHandles
  /** What is loaded, and from where. */
  extensions(): ExtensionInfo[]
}

export interface RegistryHandle<T> {
  /** Legal during setup only. A taken name (or alias) is an error naming both owners. */
  register(item: T): void
  get(name: string): T | undefined
  list(): T[]
  entries(): Array<{ owner: string; value: T }>
  /** Called after any registration or removal (hot reload). Unsubscribed automatically on unload. */
  subscribe(listener: () => void): () => void
}

export interface Services {
  /** Provide a named service object; legal during setup only. */
  provide<T>(name: string, value: T): void
  /** The current provider's value, looked up at call time (hot reload swaps it). */
  get<T>(name: string): T | undefined
  /** Like get, but throws a clear error when nothing provides it. */
  require<T>(name: string): T
  has(name: string): boolean
}

// ---------------------------------------------------------------------------------------------
// Settings: <agent_home>, config.yaml and .env

export interface Settings {
  readonly home: string
  readonly configPath: string
  readonly envPath: string
  /** A value of config.yaml by dot path (never from the environment). */
  get<T = unknown>(path: string): T | undefined
  /** The user's config.yaml alone, without a project config's overlay (where one can apply). */
  getOwn?<T = unknown>(path: string): T | undefined
  /** An environment variable: the process environment first, then `<agent_home>/.env`. */
  env(name: string): string | undefined
  /** Writes config.yaml keeping comments and layout. */
  set(path: string, value: unknown): Promise<void>
  /** Writes `<agent_home>/.env` (mode 0600). */
  setEnv(name: string, value: string | undefined): Promise<void>
  /** A deep copy of the whole config document. */
  all(): Record<string, unknown>
  /**
   * Every secret the agent knows, with its name: secret-named variables of the environment and of
   * .env, credential-shaped .env values, and credentials in the config (api_key, token, secret,
   * password keys; key_env targets; passwords inside URLs). Too short or common values are left out.
   * `fresh`: look at .env on disk now (a tool's output, read right after the tool could have
   * written it); otherwise a change to .env is seen within 100 ms.
   */
  secretEntries(options?: { fresh?: boolean }): SecretEntry[]
  /** The values of secretEntries(), for redaction in logs and errors. */
  secretValues(): string[]
  /**
   * A number that changes whenever what get() or env() answer may have changed (config.yaml, the
   * project overlay, .env), for caches of values derived from settings. Absent: cache nothing.
   */
  revision?(): number
}

// ---------------------------------------------------------------------------------------------
// Commands: one registry for slash commands and CLI subcommands

export type CommandScope = 'cli' | 'gateway' | 'both'

export interface CommandDefinition {
  name: string
  aliases?: string[]
  /** Groups commands in help texts and menus. */
  category: string
  description: string
  /** e.g. `<model>` or `[session|always]`. */
  argsHint?: string
  /** Where the slash command is offered: CLI chat, gateway chats, or both (default). */
  scope?: CommandScope
  /** Present if this is a slash command. */
  slash?: (ctx: SlashContext) => Promise<void> | void
  /** Present if this is also (or only) a top-level `agent <name>` subcommand. */
  cli?: CliCommand
}

export interface SlashContext {
  /** Everything after the command word, trimmed. */
  args: string
  /** The name or alias the user typed. */
  invokedAs: string
  surface: 'cli' | 'gateway'
  reply(text: string): Promise<void> | void
  /** The conversation the command acts on, provided by the chat surface (CLI chat, gateway). */
  chat?: ChatConversation
  /** Platform identity on the gateway. */
  source?: MessageSource
}

export type CliOptionType = 'string' | 'boolean' | 'number' | 'array'

export interface CliOption {
  type: CliOptionType
  alias?: string | string[]
  describe?: string
  default?: unknown
  choices?: readonly (string | number)[]
  demandOption?: boolean
  hidden?: boolean
}

export interface CliPositional {
  type?: 'string' | 'number'
  describe?: string
  choices?: readonly (string | number)[]
  array?: boolean
}

export interface CliCommand {
  /** Positional syntax after the command word, e.g. `<key> [value]`. */
  args?: string
  positionals?: Record<string, CliPositional>
  options?: Record<string, CliOption>
  /** `agent <name> <sub> …` */
  subcommands?: Record<string, CliSubcommand>
  run?(ctx: CliContext): Promise<number | void> | number | void
  /** Usage examples shown in --help: [command, description]. */
  examples?: Array<[string, string]>
  /**
   * `protocol`: stdout carries a protocol (JSON-RPC on stdio). The CLI gives `run` the real stdout as
   * `ctx.protocolOut` and sends whatever else is written to stdout, from extension load on, to the
   * log on stderr.
   */
  stdio?: 'protocol'
}

export interface CliSubcommand extends CliCommand {
  description: string
  aliases?: string[]
}

export interface CliContext {
  argv: { [key: string]: unknown; _: Array<string | number> }
  out(text: string): void
  err(text: string): void
  /** Prints one JSON document on stdout. Keys are snake_case (`snakeCaseKeys` for camelCase records). */
  json(value: unknown): void
  readonly isTTY: boolean
  readonly settings: Settings
  readonly services: Services
  readonly hooks: HookHandles
  readonly tools: RegistryHandle<ToolDefinition>
  readonly providers: RegistryHandle<ProviderDefinition>
  readonly commands: RegistryHandle<CommandDefinition>
  readonly adapters: RegistryHandle<AdapterDefinition>
  readonly endpoints: RegistryHandle<EndpointDefinition>
  extensions(): ExtensionInfo[]
  /**
   * Fires `ready` (starting listeners, schedulers …) in the given mode and turns on hot reload.
   * Long-running commands (`gateway run`, chat) call it; `shutdown` runs on exit.
   */
  start(mode: RunMode): Promise<void>
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal
  /**
   * Takes the process's log lines (every extension's `api.log`, already redacted) from `level` on,
   * unless AGENT_LOG_LEVEL sets another, until the returned function runs: the interactive chat
   * prints them above its prompt. Absent where the host cannot route logs.
   */
  routeLogs?(write: (line: string) => void, level?: 'debug' | 'info' | 'warn' | 'error'): () => void
  /** The real stdout, for a command declared `stdio: 'protocol'` (the only writer that reaches it). */
  readonly protocolOut?: NodeJS.WritableStream
}

export type RunMode = 'gateway' | 'chat' | 'command'

// ---------------------------------------------------------------------------------------------
// Tools

export interface ToolDefinition<I = any> {
  /** snake_case, unique across all extensions. */
  name: string
  description: string
  /** JSON Schema of the input object. */
  parameters: JsonSchema
  /** JSON Schema of the object the tool returns, when it always returns one (`agent mcp serve` advertises it). */
  outputSchema?: JsonSchema
  /** Toolset it belongs to; default the owner extension's name. */
  toolset?: string
  /** Whether the tool modifies files in the working directory (checkpoints snapshot before it). */
  modifiesFiles?: boolean
  /** Whether it is offered to the model by default (default true). */
  enabledByDefault?: boolean
  /** true if usable now, else the reason it is not (missing key, missing binary …). */
  available?(settings: Settings): true | string
  execute(options: ToolExecuteOptions<I>): Promise<unknown> | unknown
}

export interface ToolExecuteOptions<I = any> {
  input: I
  callId: string
  signal: AbortSignal
  session: ToolSession
}

export interface ToolSession {
  id: string
  /** Working directory of the conversation. */
  cwd: string
  source?: MessageSource
  /** Sends a progress line to the user (API server streams it as agent.tool.progress). */
  progress?(text: string): void
  /** Hands the session's whole plan (task list) to the user's surface, after every change. */
  plan?(entries: readonly PlanEntry[]): void
  /** Free-form per-run values other extensions cooperate through (approvals, delegation depth …). */
  extra?: Record<string, unknown>
}

// ---------------------------------------------------------------------------------------------
// Providers

export interface ProviderDefinition {
  /** Versioned so the runtime can adapt when the interface evolves. */
  specificationVersion: 1
  /** Canonical name, accepted by AGENT_INFERENCE_PROVIDER and --provider. */
  name: string
  aliases?: string[]
  label?: string
  /** Environment variables it reads (keys, base URLs): for doctor, setup and config migration. */
  envKeys?: string[]
  /** Builds a client for a model. Throws a one-line error when credentials are missing. */
  create(options: ProviderOptions): Promise<ModelClient> | ModelClient
  /** true if credentials are present, else why not. */
  configured?(settings: Settings): true | string
}

export interface ProviderOptions {
  model?: string
  baseUrl?: string
  apiKey?: string
  timeoutMs: number
  settings: Settings
  /** Provider-specific extras from config (custom_providers entry, auxiliary task …). */
  extra?: Record<string, unknown>
}

// ---------------------------------------------------------------------------------------------
// Gateway adapters

export interface MessageSource {
  platform: string
  /** Stable platform user id (never a display name). */
  userId?: string
  userName?: string
  chatId?: string
  chatType?: 'dm' | 'group' | 'channel'
}

export interface AdapterDefinition {
  /** snake_case platform name: api_server, webhook, sms … */
  name: string
  description?: string
  /** Whether `agent gateway run` starts it (platforms.<name>.enabled, an env switch …). */
  enabled(settings: Settings): boolean
  start(ctx: AdapterContext): Promise<void>
  stop(): Promise<void>
  /** Sends text to a chat of this platform (delivery targets, replies). */
  send?(chatId: string, text: string, options?: Record<string, unknown>): Promise<void>
}

export interface AdapterContext {
  readonly signal: AbortSignal
  readonly log: Logger
  readonly settings: Settings
  readonly services: Services
}

// ---------------------------------------------------------------------------------------------
// HTTP endpoints

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
export type HttpContext = KoaContext
export type HttpNext = KoaNext

export interface EndpointDefinition {
  /** Named listener: `api` (API_SERVER_HOST/PORT, default 127.0.0.1:8642), `webhook` (WEBHOOK_PORT, 8644) … */
  listener: string
  method: HttpMethod
  /** Router path, `:params` allowed. */
  path: string
  /** `api-key`: the listener's bearer key is required (constant-time compared) when one is set. */
  auth: 'none' | 'api-key'
  /**
   * Cross-origin browser requests: `listener` (default) applies the listener's allowed origins (others
   * get 403); `self` lets the endpoint decide, and it must then set CORS headers and answer OPTIONS.
   */
  crossOrigin?: 'listener' | 'self'
  handler: (ctx: HttpContext, next: HttpNext) => Promise<void> | void
}
