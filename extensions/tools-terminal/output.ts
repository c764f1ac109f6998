// Output handling shared by every backend: an in-order collector of stdout and stderr with a hard
// memory bound, and the cap applied to what the model sees (head and tail kept, the middle cut).

/** Keeps at most `limit` characters: the first 40 % and the last 60 %, with a note of what was cut. */
export function capOutput(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false }
  const head = Math.floor(limit * 0.4)
  const tail = limit - head
  const omitted = text.length - head - tail
  return { text: `${text.slice(0, head)}\n[… ${omitted} characters omitted …]\n${text.slice(text.length - tail)}`, truncated: true }
}

/**
 * Collects a process's output in arrival order. Past `2 × limit` characters only the head and a
 * rolling tail are kept, so a chatty command cannot exhaust memory.
 */
export class OutputBuffer {
  private head = ''
  private tail = ''
  private dropped = 0
  private readonly limit: number

  constructor(limit: number) {
    this.limit = limit
  }

  push(chunk: string): void {
    if (this.head.length < this.limit) {
      const room = this.limit - this.head.length
      this.head += chunk.slice(0, room)
      chunk = chunk.slice(room)
    }
    if (!chunk) return
    this.tail += chunk
    if (this.tail.length > this.limit) {
      this.dropped += this.tail.length - this.limit
      this.tail = this.tail.slice(this.tail.length - this.limit)
    }
  }

  /** Everything kept, with a marker where characters were dropped. */
  text(): string {
    return this.dropped ? `${this.head}\n[… ${this.dropped} characters omitted …]\n${this.tail}` : this.head + this.tail
  }

  /** The last `n` characters seen (for notifications). */
  last(n: number): string {
    const all = this.head + this.tail
    return all.slice(Math.max(0, all.length - n))
  }
}
