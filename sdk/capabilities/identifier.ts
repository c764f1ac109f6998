// The permission identifier grammar: `<prefix>:<base>` or a bare `<base>`, checked in the reference
// implementation's order so the first broken rule is the one reported. Capability identifiers are
// free strings and never go through this.

export interface ParsedIdentifier {
  /** `core:window`, `opener`, … ; undefined for the app's own permissions. */
  prefix?: string
  base: string
}

const PLUGIN_PREFIX = 'tauri-plugin-'
/** (64 − len("tauri-plugin-")) + 1 + 64: the longest prefix, a colon and the longest base. */
export const MAX_IDENTIFIER_LENGTH = 64 - PLUGIN_PREFIX.length + 1 + 64

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)

/** The reason an identifier is invalid, or undefined when it is valid. */
export function identifierError(id: string): string | undefined {
  if (id.startsWith(PLUGIN_PREFIX)) return `identifiers cannot start with ${PLUGIN_PREFIX}`
  if (id.length === 0) return 'identifiers cannot be empty'
  const bytes = Buffer.byteLength(id, 'utf8')
  if (bytes > MAX_IDENTIFIER_LENGTH) return `identifiers cannot be longer than ${MAX_IDENTIFIER_LENGTH}, found ${bytes}`
  const invalid = 'identifiers can only include lowercase ASCII, hyphens which are not leading or trailing, and a single colon if using a prefix'
  // Byte-wise state machine: a letter or digit may be followed by anything legal; `-` and `:` must be
  // followed by a letter or digit. Any other byte (underscore, dot, space, non-ASCII) is illegal.
  let previous: 'start' | 'alnum' | 'hyphen' | 'colon' = 'start'
  let colons = 0
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    if (isAlnum(c)) previous = 'alnum'
    else if ((c === 45 || c === 58) && previous === 'alnum') {
      previous = c === 45 ? 'hyphen' : 'colon'
      if (c === 58) colons++
    } else if ((c === 45 || c === 58) && (previous === 'hyphen' || previous === 'colon')) {
      return invalid
    } else return invalid
  }
  if (colons > 1 && !id.startsWith('core:')) return "identifiers can only include a single separator ':'"
  if (previous === 'colon') return 'identifiers cannot have a prefix without a base'
  if (previous === 'hyphen') return 'identifiers cannot have a trailing hyphen'
  return undefined
}

/**
 * `core::window`: legal characters, but an empty segment between two colons. The grammar's message
 * ("a single colon if using a prefix") misleads here, since core ids have two colons; such an id is
 * reported as an unknown permission, with the nearest known ids.
 */
export function hasEmptySegment(id: string): boolean {
  return id.includes('::') && /^[A-Za-z0-9:-]+$/.test(id)
}

/** Splits a valid identifier; for `core:` ids the prefix is everything before the last colon. */
export function parseIdentifier(id: string): ParsedIdentifier {
  const error = identifierError(id)
  if (error) throw new Error(`invalid permission identifier "${id}": ${error}`)
  const colon = id.lastIndexOf(':')
  return colon === -1 ? { base: id } : { prefix: id.slice(0, colon), base: id.slice(colon + 1) }
}

/** `set_title` → `set-title` (command names keep underscores; identifiers use hyphens). */
export function commandToIdentifier(command: string): string {
  return command.replace(/_/g, '-')
}

/** A command name an extension may expose: snake_case, so `allow-<name>` is a valid identifier. */
export const COMMAND_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/
