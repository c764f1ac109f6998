// A real kernel in a temporary AGENT_HOME for tests: credentials stripped from its environment,
// config.yaml and .env written from options, everything removed by close().

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'
import type { Kernel, KernelOptions } from 'agent/kernel'
import type { ExtensionDefinition } from '../types.ts'

export interface TestKernelOptions {
  /** Inline extensions to load after discovery. */
  extensions?: ExtensionDefinition<any>[]
  /** Built-in extensions to load (default none). */
  builtins?: string[]
  /** config.yaml contents. */
  config?: Record<string, unknown>
  /** Extra environment (the rest of the process environment is kept, minus credentials). */
  env?: Record<string, string | undefined>
  /** .env contents. */
  dotenv?: Record<string, string>
  /** Use this home instead of a new temporary one (not removed on close). */
  home?: string
  kernel?: Partial<KernelOptions>
}

export interface TestKernel {
  kernel: Kernel
  home: string
  env: NodeJS.ProcessEnv
  close(): Promise<void>
}

/** Names of variables that could leak real credentials or real endpoints into a test. */
export function isCredentialVariable(name: string): boolean {
  return /(_API_KEY|_TOKEN|_SECRET|_BASE_URL|_AUTH_TOKEN|_ACCOUNT_SID|_PASSWORD|^AGENT_|^API_SERVER_|^WEBHOOK_|^TWILIO_|^SMS_|^HASS_|^DINGTALK_|^HOMEASSISTANT_|^MATRIX_|^DISCORD_|^SIGNAL_|^WHATSAPP_|^TELEGRAM_|_ALLOWED_USERS$|_ALLOW_ALL_USERS$)/.test(name) || name === 'OPENAI_BASE_URL'
}

export function hermeticEnv(extra: Record<string, string | undefined> = {}, home?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) if (!isCredentialVariable(name)) env[name] = value
  if (home) env.AGENT_HOME = home
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

export function makeTempHome(prefix = 'agent-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export async function createTestKernel(options: TestKernelOptions = {}): Promise<TestKernel> {
  const home = options.home ?? makeTempHome()
  mkdirSync(home, { recursive: true })
  if (options.config) writeFileSync(join(home, 'config.yaml'), YAML.stringify(options.config))
  if (options.dotenv) writeFileSync(join(home, '.env'), Object.entries(options.dotenv).map(([k, v]) => `${k}=${v}`).join('\n') + '\n', { mode: 0o600 })
  const env = hermeticEnv(options.env, home)
  // The kernel is reached through the package's public entry, never through kernel internals.
  const { createKernel } = await import('agent/kernel')
  const kernel = createKernel({
    home,
    env,
    cwd: home,
    // The stores depend on `storage` (which backend) as well as `state-db`: one brings the other.
    builtins: options.builtins?.includes('state-db') && !options.builtins.includes('storage') ? [...options.builtins, 'storage'] : (options.builtins ?? []),
    inline: (options.extensions ?? []).map((definition) => ({ definition })),
    logLevel: 'silent',
    ...options.kernel,
  })
  await kernel.load()
  return {
    kernel,
    home,
    env,
    async close() {
      await kernel.shutdown('test finished')
      if (!options.home) rmSync(home, { recursive: true, force: true })
    },
  }
}
