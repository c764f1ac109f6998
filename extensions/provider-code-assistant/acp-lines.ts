// Splits a child process's output into lines, holding at most `maxBytes` of the line being read:
// readline keeps a line without its newline whole, so an agent writing one endlessly would grow
// memory without bound. Past the cap `tooLong` gets the line's head once and the rest of that line
// is dropped up to its newline; the caller decides what that means (the protocol stream fails the
// call, stderr keeps the head for the error message).

const LF = 0x0a

export class LineSplitter {
  private parts: Buffer[] = []
  private size = 0
  /** Past the cap: the rest of this line is dropped. */
  private skipping = false

  constructor(
    private readonly maxBytes: number,
    private readonly line: (text: string) => void,
    private readonly tooLong: (head: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0
    while (start < chunk.length) {
      const end = chunk.indexOf(LF, start)
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end)
      this.take(piece)
      if (end < 0) return
      this.finish()
      start = end + 1
    }
  }

  /** The stream ended: a last line without a newline still counts (as readline has it). */
  end(): void {
    if (this.size > 0 || this.skipping) this.finish()
  }

  private take(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece)
      this.size += piece.length
      return
    }
    const head = Buffer.concat([...this.parts, piece.subarray(0, this.maxBytes - this.size)])
    this.parts = []
    this.size = 0
    this.skipping = true
    this.tooLong(head)
  }

  private finish(): void {
    if (this.skipping) this.skipping = false
    else {
      // LF never occurs inside a multi-byte UTF-8 sequence, so a line decodes on its own.
      const text = Buffer.concat(this.parts, this.size).toString('utf8')
      this.line(text.endsWith('\r') ? text.slice(0, -1) : text)
    }
    this.parts = []
    this.size = 0
  }
}
