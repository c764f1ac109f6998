// `remote.urls` entries: WHATWG URLPattern constructor strings with the reference implementation's
// defaults — an empty or absent search or hash, and an absent, empty or `/` pathname, become `*`, so
// a bare origin matches any path, query and fragment (but only its default port: use `:*`).
// urlpattern-polyfill is loaded on first use (Node 20 has no global URLPattern).

import { createRequire } from 'node:module'
import type { URLPattern as URLPatternClass } from 'urlpattern-polyfill/urlpattern'

const requireLazy = createRequire(import.meta.url)
let Pattern: typeof URLPatternClass | undefined
const urlPatternClass = (): typeof URLPatternClass => (Pattern ??= (requireLazy('urlpattern-polyfill/urlpattern') as { URLPattern: typeof URLPatternClass }).URLPattern)

export class RemoteUrlPattern {
  readonly source: string
  private readonly pattern: URLPatternClass

  /** Throws with the parser's reason when the string is not a URL pattern. */
  constructor(source: string) {
    this.source = source
    this.pattern = compile(source)
  }

  /** Tests a page URL (parsed first, so scheme and host are lower-cased and an empty path is `/`). */
  test(url: string): boolean {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return false
    }
    return this.pattern.test(parsed.href)
  }

  /** Tests an already normalised URL (`new URL(x).href`). */
  testHref(href: string): boolean {
    return this.pattern.test(href)
  }
}

// The polyfill takes about a quarter of a millisecond to compile a pattern, and a file set is
// checked and then resolved: compiled patterns are immutable, so they are kept (bounded).
const compiled = new Map<string, URLPatternClass>()
const COMPILED_MAX = 1024

function compile(source: string): URLPatternClass {
  const hit = compiled.get(source)
  if (hit) return hit
  const URLPattern = urlPatternClass()
  const parsed = new URLPattern(source)
  const wild = (value: string, ...alsoWild: string[]) => value === '' || alsoWild.includes(value)
  // Only when a default applies is a second pattern needed.
  const pattern =
    wild(parsed.pathname, '/') || wild(parsed.search) || wild(parsed.hash)
      ? new URLPattern({
          protocol: parsed.protocol,
          username: parsed.username,
          password: parsed.password,
          hostname: parsed.hostname,
          port: parsed.port,
          pathname: wild(parsed.pathname, '/') ? '*' : parsed.pathname,
          search: wild(parsed.search) ? '*' : parsed.search,
          hash: wild(parsed.hash) ? '*' : parsed.hash,
        })
      : parsed
  if (compiled.size >= COMPILED_MAX) compiled.clear()
  compiled.set(source, pattern)
  return pattern
}

/** The parse error of a remote URL pattern, or undefined. */
export function remoteUrlError(source: string): string | undefined {
  try {
    new RemoteUrlPattern(source)
    return undefined
  } catch (error) {
    return (error as Error).message.split('\n')[0]
  }
}
