// The forms a secret value is matched in: as written (and URL/JSON-escaped), base64 at any alignment
// (and base64url), hex; for a multi-line value also its lines alone and a copy with the other line
// breaks; which kind each is matched as; and the patterns they are searched for with. The matcher
// (index.ts) builds its search from these.

import { isRedactableSecret } from './redactable.ts'

/** Values of this length or more are matched anywhere; shorter ones only as a whole word. */
export const ANYWHERE_LENGTH = 12
/** Encoded forms shorter than this are left out (a base64 core of a short value matches too much). */
const MIN_ENCODED_LENGTH = 10
/** Longest source of one pattern: the engine stops optimising longer ones (at 20 KB). */
const SOURCE_LIMIT = 20_000

/** The parts of base64(value) that are the same wherever the value sits in a longer encoded stream. */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8')
  const out: string[] = []
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    // Characters 6-bit aligned wholly inside the value's bits: not touched by what comes before or after.
    const start = Math.ceil((offset * 8) / 6)
    const end = Math.floor(((offset + bytes.length) * 8) / 6)
    const core = encoded.slice(start, end)
    if (core.length >= MIN_ENCODED_LENGTH) out.push(core)
  }
  return out
}

/** A PEM armour line (`-----BEGIN OPENSSH PRIVATE KEY-----`): the same in every key file, no secret alone. */
const ARMOUR = /^-----(?:BEGIN|END) [^-]*-----$/

/**
 * What a multi-line value (a PEM key) is also matched as, besides itself. `variants`: the value with
 * its line breaks all `\n` and all `\r\n` (a copy saved on Windows, or read through a
 * CRLF-translating tool). `lines`: each of its lines that is a secret alone (isRedactableSecret;
 * armour lines are not), as they are printed apart from the rest: prefixed (`12|` of read_file),
 * filtered (`grep -v -- -----`), indented. Together at most about twice as long as the value.
 */
function partsOf(value: string): { variants: string[]; lines: string[] } {
  if (!value.includes('\n')) return { variants: [], lines: [] }
  const variants = new Set([value.replace(/\r?\n/g, '\n'), value.replace(/\r?\n/g, '\r\n')])
  variants.delete(value)
  const lines = new Set<string>()
  for (const line of value.split(/\r?\n/)) {
    const bare = line.trim()
    if (!ARMOUR.test(bare) && isRedactableSecret(bare)) lines.add(bare)
  }
  return { variants: [...variants], lines: [...lines] }
}

/** A value as written, URL-escaped and JSON-escaped. */
const written = (value: string) => [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]

/**
 * The forms of `value`: as written (and URL/JSON-escaped; for a multi-line value, its variants
 * too), the same of each line of a multi-line value (`lines`: matched as written, listed apart for
 * the matcher to search them its own way), base64 (whole and cores), hex (lower-case). Only the
 * value itself is encoded: a key's lines are base64 already, and no tool prints one encoded alone.
 */
export function formsOf(value: string): { plain: string[]; lines: string[]; encoded: string[]; hex: string | undefined } {
  const parts = partsOf(value)
  const plain = [value, ...parts.variants].flatMap(written)
  const lines = parts.lines.flatMap(written)
  const encoded: string[] = []
  let hex: string | undefined
  if (value.length >= ANYWHERE_LENGTH) {
    // The value encoded alone (padding included), then the cores that match inside any longer stream.
    const whole = Buffer.from(value, 'utf8').toString('base64')
    encoded.push(whole, whole.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'))
    for (const core of base64Cores(value)) encoded.push(core, core.replace(/\+/g, '-').replace(/\//g, '_')) // and base64url
    hex = Buffer.from(value, 'utf8').toString('hex')
  }
  return { plain, lines, encoded, hex }
}

/** How a form is matched: as written; base64 (line breaks allowed inside); hex (that, in either case). */
export type FormKind = 'plain' | 'base64' | 'hex'

export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The pattern of a plain or base64 form as written (hex forms are searched for as they are, in either case). */
export function formSource(form: string, kind: FormKind): string {
  if (kind === 'plain' && form.length < ANYWHERE_LENGTH) return `(?<![A-Za-z0-9])${escape(form)}(?![A-Za-z0-9])`
  // Long values, and encoded forms (of long values only): matched anywhere.
  return escape(form)
}

/** Patterns for `sources` (alternatives in order), as few as keep each under SOURCE_LIMIT. */
export function patterns(sources: readonly string[], flags: string): RegExp[] {
  const out: RegExp[] = []
  for (let i = 0; i < sources.length; ) {
    const chunk = [sources[i++]!]
    let size = chunk[0]!.length
    while (i < sources.length && size + sources[i]!.length + 1 <= SOURCE_LIMIT) size += chunk[chunk.push(sources[i++]!) - 1]!.length + 1
    out.push(new RegExp(chunk.join('|'), flags))
  }
  return out
}
