// Input history of the interactive chat, kept across runs in <agent_home>/cli_history (one JSON
// string per line so multi-line entries survive; mode 0600; the newest 1000 kept).

import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const MAX = 1000

export class InputHistory {
  readonly entries: string[] = []
  private readonly path: string

  constructor(home: string) {
    this.path = join(home, 'cli_history')
    try {
      if (!existsSync(this.path)) return
      for (const line of readFileSync(this.path, 'utf8').split('\n')) {
        if (!line) continue
        try {
          const entry = JSON.parse(line)
          if (typeof entry === 'string') this.entries.push(entry)
        } catch {
          // A torn last line from a crash is skipped.
        }
      }
      if (this.entries.length > MAX) {
        this.entries.splice(0, this.entries.length - MAX)
        writeFileSync(this.path, this.entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 })
      }
    } catch {
      // History is a convenience; an unreadable file never stops the chat.
    }
  }

  /** Appends to the file (the editor has already added it to `entries`). */
  save(entry: string): void {
    try {
      const fresh = !existsSync(this.path)
      appendFileSync(this.path, JSON.stringify(entry) + '\n', { mode: 0o600 })
      if (fresh) chmodSync(this.path, 0o600)
    } catch {
      // Read-only home: keep the history in memory only.
    }
  }
}
