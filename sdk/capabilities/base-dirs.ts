// The base-directory variables a path scope may start with (`$HOME/notes/**`), where each points on
// this machine, and the expansion of a path entry: only a whole first component may be a variable,
// later `..` components are dropped, an unknown `$NAME` stays literal, and an entry whose base
// directory does not exist here is dropped. `$APP` and `$LOG` are part of our spec (the app's
// config and log directories), as are the `$APP…` variables, which point into <agent_home>.

import { escapeGlob } from './glob.ts'

export const PATH_VARIABLES = [
  'AUDIO', 'CACHE', 'CONFIG', 'DATA', 'LOCALDATA', 'DESKTOP', 'DOCUMENT', 'DOWNLOAD', 'EXE', 'FONT', 'HOME', 'PICTURE', 'PUBLIC',
  'RUNTIME', 'TEMPLATE', 'VIDEO', 'RESOURCE', 'APP', 'LOG', 'TEMP', 'APPCONFIG', 'APPDATA', 'APPLOCALDATA', 'APPCACHE', 'APPLOG',
] as const
export type PathVariable = (typeof PATH_VARIABLES)[number]
export type BaseDirectories = Partial<Record<PathVariable, string>>

export const isPathVariable = (name: string): name is PathVariable => (PATH_VARIABLES as readonly string[]).includes(name)

export interface BaseDirectoryInput {
  platform: NodeJS.Platform
  /** Environment (XDG_*, APPDATA, LOCALAPPDATA …). */
  env: Record<string, string | undefined>
  home: string
  tmp: string
  /** <agent_home>: the app's config and data directory. */
  appHome: string
  /** The agent's installation (RESOURCE). */
  resourceDir?: string
  /** Parsed `~/.config/user-dirs.dirs` (XDG_MUSIC_DIR → path …), Linux only. */
  userDirs?: Record<string, string>
}

const join = (...parts: string[]) => parts.join('/').replace(/\/+/g, '/')

/** Where each variable points, by the platform's conventions (the `dirs` crate's on Linux). */
export function defaultBaseDirectories(input: BaseDirectoryInput): BaseDirectories {
  const { env, home, platform } = input
  const absolute = (v: string | undefined) => (v && v.startsWith('/') ? v : undefined)
  const app: BaseDirectories = {
    HOME: home,
    TEMP: input.tmp,
    RESOURCE: input.resourceDir,
    APP: input.appHome,
    APPCONFIG: input.appHome,
    APPDATA: input.appHome,
    APPLOCALDATA: input.appHome,
    APPCACHE: join(input.appHome, 'cache'),
    APPLOG: join(input.appHome, 'logs'),
    LOG: join(input.appHome, 'logs'),
  }
  if (platform === 'darwin') {
    const support = join(home, 'Library/Application Support')
    return {
      ...app, CACHE: join(home, 'Library/Caches'), CONFIG: support, DATA: support, LOCALDATA: support, AUDIO: join(home, 'Music'),
      DESKTOP: join(home, 'Desktop'), DOCUMENT: join(home, 'Documents'), DOWNLOAD: join(home, 'Downloads'), PICTURE: join(home, 'Pictures'),
      PUBLIC: join(home, 'Public'), VIDEO: join(home, 'Movies'), FONT: join(home, 'Library/Fonts'),
    }
  }
  if (platform === 'win32') {
    const roaming = env.APPDATA ?? join(home, 'AppData/Roaming')
    const local = env.LOCALAPPDATA ?? join(home, 'AppData/Local')
    return {
      ...app, CACHE: local, CONFIG: roaming, DATA: roaming, LOCALDATA: local, AUDIO: join(home, 'Music'), DESKTOP: join(home, 'Desktop'),
      DOCUMENT: join(home, 'Documents'), DOWNLOAD: join(home, 'Downloads'), PICTURE: join(home, 'Pictures'), PUBLIC: env.PUBLIC,
      VIDEO: join(home, 'Videos'), TEMPLATE: join(roaming, 'Microsoft/Windows/Templates'), FONT: undefined,
    }
  }
  const data = absolute(env.XDG_DATA_HOME) ?? join(home, '.local/share')
  const user = input.userDirs ?? {}
  return {
    ...app,
    CACHE: absolute(env.XDG_CACHE_HOME) ?? join(home, '.cache'),
    CONFIG: absolute(env.XDG_CONFIG_HOME) ?? join(home, '.config'),
    DATA: data,
    LOCALDATA: data,
    EXE: absolute(env.XDG_BIN_HOME) ?? join(home, '.local/bin'),
    FONT: join(data, 'fonts'),
    RUNTIME: absolute(env.XDG_RUNTIME_DIR),
    AUDIO: user.XDG_MUSIC_DIR,
    DESKTOP: user.XDG_DESKTOP_DIR ?? join(home, 'Desktop'),
    DOCUMENT: user.XDG_DOCUMENTS_DIR,
    DOWNLOAD: user.XDG_DOWNLOAD_DIR,
    PICTURE: user.XDG_PICTURES_DIR,
    PUBLIC: user.XDG_PUBLICSHARE_DIR,
    TEMPLATE: user.XDG_TEMPLATES_DIR,
    VIDEO: user.XDG_VIDEOS_DIR,
  }
}

/** `XDG_DOWNLOAD_DIR="$HOME/Downloads"` lines → absolute paths (a value equal to $HOME means "unset"). */
export function parseUserDirs(text: string, home: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const m = /^\s*(XDG_[A-Z]+_DIR)\s*=\s*"(.*)"\s*$/.exec(line)
    if (!m) continue
    const value = m[2]!.replace(/^\$HOME(?=\/|$)/, home)
    if (value.startsWith('/') && value.replace(/\/$/, '') !== home.replace(/\/$/, '')) out[m[1]!] = value
  }
  return out
}

/**
 * A path entry as a glob pattern on this machine, or undefined when its base directory is unknown
 * here (the entry is dropped). The base directory is escaped: only the rest of the entry is a glob.
 */
export function expandPathEntry(path: string, dirs: BaseDirectories): string | undefined {
  const absolute = path.startsWith('/')
  const components = path.split('/').filter((c) => c !== '' && c !== '.')
  const out: string[] = []
  let prefix = absolute ? '/' : ''
  components.forEach((component, i) => {
    if (i === 0 && !absolute && component.startsWith('$') && isPathVariable(component.slice(1))) {
      const dir = dirs[component.slice(1) as PathVariable]
      if (dir === undefined) {
        prefix = '\0'
        return
      }
      prefix = escapeGlob(dir.endsWith('/') ? dir : dir + '/')
      return
    }
    if (component === '..') return
    out.push(component)
  })
  if (prefix === '\0') return undefined
  const joined = prefix + out.join('/')
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined
}
