// Where the path-scope variables point on this machine: the platform's conventions from the
// environment (through settings, so tests stay hermetic), XDG user dirs on Linux, and the agent's
// home for the $APP… variables. Existing directories are canonicalised, as the paths they are
// compared with are.

import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defaultBaseDirectories, parseUserDirs, type BaseDirectories, type PathVariable, type Settings } from 'agent/sdk'

const ENV_NAMES = ['HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_BIN_HOME', 'XDG_RUNTIME_DIR', 'APPDATA', 'LOCALAPPDATA', 'PUBLIC', 'TMPDIR']

/** The agent's installation folder ($RESOURCE). */
export const AGENT_INSTALL_DIR = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')

export function machineBaseDirectories(settings: Settings): BaseDirectories {
  const env: Record<string, string | undefined> = {}
  for (const name of ENV_NAMES) env[name] = settings.env(name)
  const home = env.HOME ?? homedir()
  const configHome = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : `${home}/.config`
  let userDirs: Record<string, string> | undefined
  if (process.platform === 'linux') {
    try {
      userDirs = parseUserDirs(readFileSync(`${configHome}/user-dirs.dirs`, 'utf8'), home)
    } catch {
      userDirs = undefined
    }
  }
  const dirs = defaultBaseDirectories({ platform: process.platform, env, home, tmp: env.TMPDIR ?? tmpdir(), appHome: settings.home, resourceDir: AGENT_INSTALL_DIR, userDirs })
  for (const [name, dir] of Object.entries(dirs) as Array<[PathVariable, string | undefined]>) {
    if (dir && existsSync(dir)) dirs[name] = realpathSync(dir)
  }
  return dirs
}
