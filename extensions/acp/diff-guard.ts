// The diffs an editor is shown for `write_file` and `patch` (tool-calls.ts editDiff) reach it
// without passing the runtime's redaction: the old text of a written file is read from disk here
// (turn.ts), not by a tool, and the new text is the model's arguments as sent. So:
// - a secret file (sdk/protected-paths.ts: the agent home's .env, SSH keys, credential files, a
//   process's environ, a hard link to one of them) is never read for a diff and gets none, old or
//   new text: what makes it secret is where it is, and it may hold keys the agent does not know as
//   secrets, which no redactor would find. The editor still gets the call, its path and its result.
// - every other diff has each known secret in its old and new text replaced by `[REDACTED:NAME]`
//   (a protected file such as config.yaml holds the agent's keys; any file may hold one), with .env
//   looked at now (the write may have been to it). Secrets that cannot be read: no diff (fail closed).

import { knownSecretsRedactor, pathClassifier, type SecretEntry } from 'agent/sdk'
import type { ToolCallContent } from '@agentclientprotocol/sdk/unstable'

export interface DiffGuard {
  /** Whether the file at `path` (absolute) may be read for a diff and shown in one: not a secret file. */
  mayShow(path: string): boolean
  /** `content` with known secrets redacted from a diff's texts; undefined when it must not be sent. */
  clear(content: ToolCallContent): ToolCallContent | undefined
}

export function diffGuard(settings: { home: string; secretEntries(options?: { fresh?: boolean }): SecretEntry[] }): DiffGuard {
  const classifier = pathClassifier({ agentHome: settings.home })
  const mayShow = (path: string) => {
    try {
      const found = classifier.real(path)
      return found.kind !== 'secret' && !classifier.hardLinkedSecret(found.path)
    } catch {
      return false
    }
  }
  return {
    mayShow,
    clear(content) {
      if (content.type !== 'diff') return content
      if (!mayShow(content.path)) return undefined
      let redact: (text: string) => string
      try {
        redact = knownSecretsRedactor(settings, { fresh: true })
      } catch {
        return undefined
      }
      const oldText = typeof content.oldText === 'string' ? redact(content.oldText) : content.oldText
      return { ...content, oldText, newText: redact(content.newText) }
    },
  }
}
