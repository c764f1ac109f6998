// Shared by the plugins-cli tests: a temporary home and work folder, copies of the sample plugin,
// and the real CLI with npm's registry pointed at a dead loopback port (nothing leaves the machine).

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { makeTempHome } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'

const TEMPLATE = fileURLToPath(new URL('../../fixtures/plugins/hello', import.meta.url))

export type PluginFiles = { pkg: any; code: string }

/** A fresh copy of the sample plugin under `root/name`, optionally edited. */
export function pluginCopy(root: string, name: string, edit: (files: PluginFiles) => PluginFiles = (f) => f): string {
  const dir = join(root, name)
  cpSync(TEMPLATE, dir, { recursive: true })
  const files = edit({ pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), code: readFileSync(join(dir, 'index.ts'), 'utf8') })
  writeFileSync(join(dir, 'package.json'), JSON.stringify(files.pkg, null, 2))
  writeFileSync(join(dir, 'index.ts'), files.code)
  return dir
}

/** Renames the sample plugin's package, extension and tool. */
export const renamed = (pkg: string, extension: string, tool: string) => (f: PluginFiles): PluginFiles => ({
  pkg: { ...f.pkg, name: pkg },
  code: f.code.replace("name: 'hello-plugin'", `name: '${extension}'`).replace("name: 'hello_plugin'", `name: '${tool}'`),
})

export interface PluginsWorld {
  home: string
  work: string
  /** A file the sample plugin's npm scripts write if they ever run. */
  marker: string
  agent(...args: string[]): ReturnType<typeof runAgent>
  deps(): Record<string, string>
  cleanup(): void
}

export function pluginsWorld(): PluginsWorld {
  const home = makeTempHome()
  const work = mkdtempSync(join(tmpdir(), 'agent-plugins-work-'))
  const marker = join(work, 'script-ran.txt')
  const env = { npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: join(work, 'npm-cache'), PLUGIN_SCRIPT_MARKER: marker }
  return {
    home,
    work,
    marker,
    agent: (...args: string[]) => runAgent(args, { home, env, cwd: work, logLevel: 'error', timeoutMs: 100_000 }),
    deps() {
      try {
        return JSON.parse(readFileSync(join(home, 'plugins', 'package.json'), 'utf8')).dependencies ?? {}
      } catch {
        return {}
      }
    },
    cleanup() {
      rmSync(home, { recursive: true, force: true })
      rmSync(work, { recursive: true, force: true })
    },
  }
}
