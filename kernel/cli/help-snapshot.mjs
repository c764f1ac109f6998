// `--help` from a snapshot of the command registry. Loading every extension to print help costs
// hundreds of milliseconds; the registry's command shapes only change when an extension file, the
// configuration, or an environment variable read during loading changes. So after a full load for
// help, the shapes are saved with a fingerprint of all of those, and the next `--help` is answered
// from the snapshot if the fingerprint still matches (otherwise the full load runs, as before).

import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'

const FORMAT = 1
const PROJECT_CONFIG_FILES = ['.agentrc', '.agentrc.yaml', '.agentrc.yml', '.agentrc.json', 'agent.config.yaml', '.agent/config.yaml']

export const isHelpRequest = (args) => args.includes('--help') || args.includes('-h')

function snapshotFile(home) {
  return join(home, 'cache', 'cli-help.json')
}

function walk(dir, out, depth = 0) {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' && depth > 0) continue
    if (entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory() || entry.isSymbolicLink()) {
      if (depth < 6) walk(path, out, depth + 1)
    } else if (/\.(ts|mts|cts|js|mjs|cjs|json)$/.test(entry.name)) {
      out.push(path)
    }
  }
}

function stamp(path) {
  try {
    const s = statSync(path)
    return `${path}:${s.mtimeMs}:${s.size}`
  } catch {
    return `${path}:-`
  }
}

/** Everything that can change what the registry holds, except environment variables. */
export function fingerprint({ root, home, cwd, version }) {
  const files = []
  walk(join(root, 'extensions'), files)
  walk(join(home, 'extensions'), files)
  walk(join(home, 'plugins', 'node_modules'), files, 1)
  files.sort()
  const hash = createHash('sha1').update(`${FORMAT}\n${version}\n${process.version}\n`)
  for (const file of files) hash.update(stamp(file) + '\n')
  for (const file of [join(home, 'config.yaml'), join(home, '.env'), ...PROJECT_CONFIG_FILES.map((f) => join(cwd, f))]) hash.update(stamp(file) + '\n')
  return hash.digest('hex')
}

const hashValue = (value) => (value === undefined ? null : createHash('sha1').update(value).digest('hex'))

/** Command definitions without their functions: what yargs needs to print help. */
function shapeOf(command) {
  const cli = (c) => c && { args: c.args, positionals: c.positionals, options: c.options, examples: c.examples, description: c.description, aliases: c.aliases, run: Boolean(c.run), subcommands: c.subcommands && Object.fromEntries(Object.entries(c.subcommands).map(([n, s]) => [n, cli(s)])) }
  return { name: command.name, aliases: command.aliases, category: command.category, description: command.description, cli: cli(command.cli) }
}

export function writeSnapshot({ home, print, commands, envRead, env }) {
  try {
    const file = snapshotFile(home)
    mkdirSync(join(home, 'cache'), { recursive: true })
    const data = { format: FORMAT, print, env: Object.fromEntries([...envRead].map((name) => [name, hashValue(env[name] || undefined)])), commands: commands.map(shapeOf) }
    writeFileSync(file + '.tmp', JSON.stringify(data))
    renameSync(file + '.tmp', file)
  } catch {
    // A cache that cannot be written only costs speed.
  }
}

/** Prints help from the snapshot and returns true, or returns false when the snapshot is not valid. */
export async function helpFromSnapshot({ args, home, root, cwd, env, version, stdout }) {
  if (args.includes('--project-extensions') || env.AGENT_PROJECT_EXTENSIONS === 'true') return false
  const file = snapshotFile(home)
  if (!existsSync(file)) return false
  let data
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return false
  }
  if (data.format !== FORMAT || data.print !== fingerprint({ root, home, cwd, version })) return false
  for (const [name, hashed] of Object.entries(data.env ?? {})) if (hashValue(env[name] || undefined) !== hashed) return false
  const [{ default: yargs }, { buildParser, withDefaultCommand, cliCommandNames }] = await Promise.all([import('yargs'), import('./yargs-from-registry.mjs')])
  const parser = buildParser(yargs, data.commands, async () => {}, { version, columns: stdout.columns })
  let output = ''
  let failed = false
  try {
    await parser.parseAsync(withDefaultCommand(args, cliCommandNames(data.commands)), {}, (error, _argv, text) => {
      output = text
      failed ||= Boolean(error)
    })
  } catch {
    failed = true
  }
  // Only a clean help print is served from the snapshot; anything else takes the normal path.
  if (!output || failed) return false
  stdout.write(output + '\n')
  return true
}
