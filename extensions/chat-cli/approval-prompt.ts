// Dangerous-command approval inside the interactive chat: the chat owns the terminal, so approvals
// must ask here rather than through a prompt of their own on the same stdin. The question goes to
// the transcript; the next line the user submits answers it.

import type { ApprovalChoice, ApprovalPrompt, ApprovalRequest } from 'agent/sdk'

const ANSWERS: Record<string, ApprovalChoice> = { y: 'once', yes: 'once', once: 'once', s: 'session', session: 'session', a: 'always', always: 'always' }

/** Reads an answer: yes/once, session, always; anything else denies (fail closed). */
export function parseApprovalAnswer(line: string): ApprovalChoice {
  return ANSWERS[line.trim().toLowerCase()] ?? 'deny'
}

export class ApprovalQuestions {
  private waiting: Array<(choice: ApprovalChoice) => void> = []

  constructor(private readonly show: (lines: string[]) => void) {}

  /** The prompt handed to runs as `RunRequest.extra.approvalPrompt`. */
  readonly prompt: ApprovalPrompt = (request: ApprovalRequest) =>
    new Promise<ApprovalChoice>((resolve) => {
      this.show([
        `⚠ approval needed: ${request.tool} wants to run`,
        `    ${request.command}`,
        `  ${request.findings.map((f) => f.description).join('; ')}`,
        '  answer: y (once) · s (this session) · a (always) · anything else denies',
      ])
      this.waiting.push(resolve)
    })

  /** True while a question waits for the user's next line. */
  get pending(): boolean {
    return this.waiting.length > 0
  }

  /** Answers the oldest question with a submitted line; returns the choice. */
  answer(line: string): ApprovalChoice {
    const choice = parseApprovalAnswer(line)
    this.waiting.shift()?.(choice)
    return choice
  }

  /** Leaving the chat denies whatever still waits. */
  denyAll(): void {
    for (const resolve of this.waiting.splice(0)) resolve('deny')
  }
}
