// The running output of a background process, for its live notifications (level `all`), redacted as
// one stream rather than notification by notification. Each notification redacted on its own would
// let a secret printed across two of them (a slow command, a flush in between) show its two halves,
// neither of which matches. The matcher's stream (sdk/secrets/stream.ts) holds back a tail that
// could still grow into a secret until more output decides it, so a notification carries a secret
// whole (as its marker) or nothing of it. The tail held back when the process ends is never sent
// here: the exit notification carries the end of the output (guarded where it is cut).

import { errorMessage, secretMatcher, type SecretEntry, type SecretMatcher, type SecretStream } from 'agent/sdk'

/** Redacted text kept for the next notification at most; past it, the older part goes. */
const KEEP_CHARS = 8000
/** Characters sent in one notification at most (the newest: a tail is what a user watches). */
const SEND_CHARS = 2000

export class LiveOutput {
  private matcher: SecretMatcher | undefined
  private stream: SecretStream | undefined
  /** Redacted output not sent yet. */
  private ready = ''
  /** Whether older output was dropped from `ready` (its start is then no line's start). */
  private dropped = false
  /** Why the secrets could not be read, when they could not: what arrived meanwhile was dropped. */
  private failure: string | undefined

  constructor(private readonly settings: { secretEntries(options?: { fresh?: boolean }): SecretEntry[] }) {}

  /** Raw output as it arrives. */
  push(raw: string): void {
    const stream = this.current(false)
    if (stream) this.append(stream.push(raw))
  }

  /** Whether there is something to send (the stream may be holding everything back). */
  get pending(): boolean {
    return this.ready.length > 0 || this.failure !== undefined
  }

  /** The text of the next notification ('' for none): the newest redacted output, at most SEND_CHARS. */
  take(): string {
    // .env looked at now: the command may have written a secret to it since the last look.
    this.current(true)
    if (this.failure !== undefined) {
      const why = this.failure
      this.failure = undefined
      return `output withheld: the known secrets could not be read to redact it (${why})`
    }
    let text = this.ready
    const cut = this.dropped || text.length > SEND_CHARS
    this.ready = ''
    this.dropped = false
    if (!cut) return text
    // The text is redacted already, so a cut leaves no part of a secret; it starts at a line when
    // one starts near (not in the middle of a word or a marker).
    text = text.slice(-SEND_CHARS)
    const line = text.indexOf('\n')
    return line >= 0 && line < text.length - 1 && line < SEND_CHARS / 2 ? text.slice(line + 1) : `…${text}`
  }

  private append(redacted: string): void {
    this.ready += redacted
    if (this.ready.length > KEEP_CHARS) {
      this.ready = this.ready.slice(-KEEP_CHARS / 2)
      this.dropped = true
    }
  }

  /** The stream for the secrets known now; a new one when the set changed; none when they cannot be read. */
  private current(fresh: boolean): SecretStream | undefined {
    let matcher: SecretMatcher
    try {
      matcher = secretMatcher(this.settings.secretEntries({ fresh }))
    } catch (error) {
      // Fail closed: nothing is passed on that could not be redacted, the held tail included.
      this.failure = errorMessage(error)
      this.matcher = this.stream = undefined
      this.ready = ''
      return undefined
    }
    if (matcher !== this.matcher) {
      // What is not sent yet (what the old stream passed on, and what it held back) goes through
      // the new one: a secret now known is redacted in it, and a tail that could start one is held.
      const rest = this.ready + (this.stream?.flush() ?? '')
      this.ready = ''
      this.matcher = matcher
      this.stream = matcher.stream()
      if (rest) this.append(this.stream.push(rest))
    }
    return this.stream
  }
}
