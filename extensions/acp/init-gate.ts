// Requests an editor sends before the `initialize` answer (session/new right behind initialize) wait
// for it instead of failing: the SDK refuses anything but initialize (-32600) until it has answered.
// The gate reads stdin line by line until then, passes `initialize` on, holds the rest, and lets them
// through in order once the answer to that initialize has been written. After that, bytes pass as
// they come.

/** Lines held at most; past it, lines pass (and the SDK refuses them) so memory stays bounded. */
const MAX_HELD_BYTES = 8 * 1024 * 1024

export class InitGate {
  private open = false
  private partial = ''
  private held: string[] = []
  private heldBytes = 0
  /** Ids of initialize requests passed on, whose answer opens the gate. */
  private readonly initIds = new Set<unknown>()
  private readonly decoder = new TextDecoder()
  private readonly encoder = new TextEncoder()

  constructor(private readonly deliver: (bytes: Uint8Array) => void) {}

  /** Bytes from stdin. */
  input(chunk: Uint8Array): void {
    if (this.open) return this.deliver(chunk)
    const lines = (this.partial + this.decoder.decode(chunk, { stream: true })).split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) {
      if (this.open || this.isInitialize(line) || this.heldBytes + line.length > MAX_HELD_BYTES) this.pass(line)
      else {
        this.held.push(line)
        this.heldBytes += line.length
      }
    }
  }

  /** Bytes about to be written to stdout, after they were: an answer to initialize opens the gate. */
  written(chunk: Uint8Array): void {
    if (this.open || this.initIds.size === 0) return
    for (const line of new TextDecoder().decode(chunk).split('\n')) {
      const message = parse(line)
      if (message && 'result' in message && this.initIds.has(message.id)) return this.release()
    }
  }

  private isInitialize(line: string): boolean {
    const message = parse(line)
    if (message?.method !== 'initialize') return false
    this.initIds.add(message.id)
    return true
  }

  private pass(line: string): void {
    this.deliver(this.encoder.encode(`${line}\n`))
  }

  private release(): void {
    this.open = true
    for (const line of this.held.splice(0)) this.pass(line)
    this.heldBytes = 0
    if (this.partial) this.deliver(this.encoder.encode(this.partial))
    this.partial = ''
  }
}

function parse(line: string): { method?: unknown; id?: unknown; result?: unknown } | undefined {
  if (!line.includes('"')) return undefined
  try {
    const value: unknown = JSON.parse(line)
    return value && typeof value === 'object' ? (value as { method?: unknown; id?: unknown }) : undefined
  } catch {
    return undefined
  }
}
