// `agent` / `agent chat` in a terminal: the prompt comes up first, then the kernel starts; typed
// lines run as turns (streamed), slash commands go through the registry (also while a turn runs),
// Ctrl-C interrupts the turn and a second Ctrl-C leaves. The status bar ticks once a second.

import { emitKeypressEvents } from 'node:readline'
import { AgentError, errorMessage, redactSecrets, resolveSlash, SESSIONS_SERVICE, terminalSafe, type CliContext, type SessionStore, type SlashContext } from 'agent/sdk'
import { ApprovalQuestions } from './approval-prompt.ts'
import { ElicitationQuestions } from './elicitation-prompt.ts'
import { complete, suggest } from './completion.ts'
import { CliConversation } from './conversation.ts'
import { InputHistory } from './history.ts'
import { LineEditor, type Key } from './input.ts'
import { Screen } from './screen.ts'
import { renderStatusBar } from './status-bar.ts'
import { createTheme, themeMode } from './theme.ts'
import { ToolActivity } from './tool-activity.ts'
import { Transcript } from './transcript.ts'

export interface InteractiveOptions {
  /** `-c [name]`: true for the latest CLI session, a string for a named one. */
  continue?: string | true
  resume?: string
  worktree?: boolean
  skills?: string[]
  provider?: string
  model?: string
  personality?: string
  checkpoints?: boolean
  /** Starts the kernel (`ctx.start('chat')`); called after the prompt is drawn. */
  start?: () => Promise<void>
}

export interface InteractiveIo {
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
}

/** A second Ctrl-C within this many ms leaves the chat. */
const DOUBLE_PRESS_MS = 2000

export async function runInteractive(ctx: CliContext, options: InteractiveOptions, io: InteractiveIo = { stdin: process.stdin, stdout: process.stdout }): Promise<number> {
  const { stdin, stdout } = io
  const settings = ctx.settings
  // Checked first: a theme the chat cannot use stops it before anything is changed (a worktree).
  const theme = createTheme(themeMode(settings.get('display.theme'), settings.env('COLORFGBG')), !settings.env('NO_COLOR'))
  let cwd = process.cwd()
  let worktree: Awaited<ReturnType<typeof import('./worktree.ts').createWorktree>> | undefined
  if (options.worktree) {
    const { createWorktree } = await import('./worktree.ts')
    worktree = await createWorktree(cwd)
    cwd = worktree.path
  }

  const screen = new Screen(stdout, { statusBar: settings.get('display.statusbar') !== false })
  const history = new InputHistory(settings.home)
  const editor = new LineEditor(history.entries)
  /** An error line as shown: cleared of known secrets (a provider may echo any back), withheld when they cannot be read. */
  const shownError = (error: unknown): string => {
    try {
      return redactSecrets(errorMessage(error), settings.secretValues())
    } catch (cause) {
      return `the error message is withheld: the known secrets could not be read to redact it (${errorMessage(cause)})`
    }
  }
  const chat = new CliConversation({ services: ctx.services, settings, tools: ctx.tools, cwd, provider: options.provider, model: options.model, skills: options.skills, personality: options.personality, checkpoints: options.checkpoints })
  const transcript = new Transcript(screen, theme, () => chat.showReasoning())
  const approvals = new ApprovalQuestions((lines) => {
    for (const line of lines) transcript.line(theme.warn(line))
    drawInput()
  })
  chat.approvalPrompt = approvals.prompt
  const questions = new ElicitationQuestions((lines) => {
    for (const line of lines) transcript.line(theme.warn(line))
    drawInput()
  })
  chat.elicitationPrompt = questions.prompt

  let note: { text: string; until: number } | undefined
  let lastInterrupt = 0
  let finish!: () => void
  const finished = new Promise<void>((resolve) => (finish = resolve))
  let exiting = false

  const status = () => {
    if (note && note.until < Date.now()) note = undefined
    const model = chat.model()
    const usage = chat.usage()
    const name = model.customName ? `custom:${model.customName}:${model.model}` : `${model.provider}:${model.model}`
    screen.setStatus(
      renderStatusBar(
        {
          model: name,
          sessionModel: model.origin === 'session',
          contextTokens: usage.contextTokens,
          contextLength: usage.contextLength,
          costUsd: usage.costUsd,
          showCost: settings.get('display.show_cost') !== false,
          elapsedMs: Date.now() - usage.startedAt,
          busy: chat.busy(),
          activity: activity.names(),
          queued: chat.queued(),
          background: chat.runningBackground(),
          note: note?.text,
        },
        screen.columns,
        theme,
      ),
    )
  }
  const drawInput = () => {
    const prompt = chat.busy() ? '… ' : editor.prompt
    const layout = editor.layout(screen.columns, screen.maxInputRows, prompt)
    const first = layout.lines[0] ?? ''
    if (first.startsWith(prompt)) layout.lines[0] = theme.prompt(prompt) + first.slice(prompt.length)
    // Running tools are drawn above the input, as part of it: the output region is never rewritten.
    const live = activity.lines(screen.columns, screen.maxInputRows)
    screen.setInput([...live, ...layout.lines], { row: layout.cursor.row + live.length, col: layout.cursor.col })
  }
  const activity = new ToolActivity((text) => transcript.line(text), theme, drawInput)
  const flash = (text: string) => {
    note = { text, until: Date.now() + DOUBLE_PRESS_MS }
    status()
  }
  const leave = () => {
    if (exiting) return
    exiting = true
    finish()
  }

  chat.ui = {
    turnStarted: (prompt) => transcript.user(prompt),
    event: (event) => {
      if (!activity.event(event)) return transcript.event(event)
      // The status bar names the running tools.
      if (event.type !== 'tool.progress') status()
    },
    turnEnded: (result, error, byUser) => {
      activity.clear()
      transcript.end(result, error, byUser)
      drawInput()
    },
    backgroundDone: (task) => transcript.background(task),
    changed: () => status(),
    statusBar: { visible: () => screen.statusBarVisible, setVisible: (v) => (screen.setStatusVisible(v), status()) },
    exit: leave,
  }

  const runSlash = async (line: string): Promise<boolean> => {
    const resolved = resolveSlash(ctx.commands.list(), line, 'cli')
    if (!resolved) return false
    transcript.user(line)
    if ('unknown' in resolved) {
      const near = suggest(ctx.commands.list(), resolved.unknown)
      transcript.line(theme.warn(`Unknown command /${resolved.unknown}.${near.length ? ` Did you mean ${near.map((n) => `/${n}`).join(', ')}?` : ''} /help lists the commands.`))
      transcript.blank()
      return true
    }
    const slash: SlashContext = {
      args: resolved.args,
      invokedAs: resolved.invokedAs,
      surface: 'cli',
      reply: (text) => transcript.line(text),
      chat: chat as unknown as SlashContext['chat'],
    }
    try {
      await resolved.command.slash!(slash)
    } catch (error) {
      transcript.line(theme.error(`✗ /${resolved.invokedAs}: ${shownError(error)}`))
    }
    if (!exiting) transcript.blank()
    status()
    return true
  }

  let started: Promise<void> = Promise.resolve()
  const submit = async (line: string) => {
    const text = line.trim()
    // An empty line answers a form's field (its default, or skipping it).
    if (!text && !questions.pending) return
    if (approvals.pending) {
      const choice = approvals.answer(text)
      transcript.line(theme.dim(choice === 'deny' ? '✗ denied' : `✓ approved (${choice})`))
      drawInput()
      return
    }
    if (questions.pending) {
      const note = questions.answer(line)
      if (note) transcript.line(theme.dim(note))
      drawInput()
      return
    }
    editor.remember(line)
    history.save(line)
    if (await runSlash(text)) return
    await started.catch(() => undefined)
    if (chat.busy()) transcript.line(theme.dim(`(queued: ${text.length > 50 ? text.slice(0, 49) + '…' : text})`))
    chat.submit(line)
    drawInput()
  }

  const onKey = (str: string | undefined, key: Key | undefined) => {
    if (exiting) return
    const action = editor.handleKey(str, key ?? {})
    switch (action) {
      case 'interrupt': {
        const now = Date.now()
        const again = now - lastInterrupt < DOUBLE_PRESS_MS
        lastInterrupt = now
        if (chat.busy()) {
          if (again) return leave()
          void chat.stop()
          flash('Interrupted · Ctrl-C again to exit')
          return
        }
        if (editor.value) {
          editor.clear()
          drawInput()
          lastInterrupt = 0
          return
        }
        if (again) return leave()
        flash('Ctrl-C again to exit')
        return
      }
      case 'eof':
        return leave()
      case 'submit': {
        const line = editor.value
        editor.clear()
        drawInput()
        void submit(line)
        return
      }
      case 'complete': {
        const result = complete(ctx.commands.list(), editor.value)
        if (result.text !== undefined) editor.set(result.text)
        if (result.candidates.length > 1) transcript.line(theme.dim(result.candidates.join('  ')))
        drawInput()
        return
      }
      case 'redraw':
        screen.redraw()
        status()
        return
      case 'changed':
        drawInput()
        return
      default:
        return
    }
  }

  // --- start -----------------------------------------------------------------------------------
  emitKeypressEvents(stdin)
  stdin.setRawMode?.(true)
  stdin.on('keypress', onKey)
  stdin.resume()
  const onResize = () => {
    screen.resize(stdout.columns ?? 80, stdout.rows ?? 24)
    drawInput()
    status()
  }
  stdout.on('resize', onResize)
  screen.start()
  // Log lines (a reload, a failed one) go above the prompt and stay, instead of over it.
  const unrouteLogs = ctx.routeLogs?.((raw) => {
    const line = terminalSafe(raw)
    transcript.line(/^\[[^\]]*\] (warn|error):/.test(line) ? theme.warn(line) : theme.dim(line))
  }, 'info')
  drawInput()
  status()
  const ticker = setInterval(status, 1000)
  const onAbort = () => leave()
  ctx.signal.addEventListener('abort', onAbort, { once: true })

  transcript.line(theme.dim(`agent · /help lists commands · Enter sends, Ctrl-J or a trailing \\ adds a line · Ctrl-C interrupts, twice leaves`))
  if (worktree) transcript.line(theme.dim(`working in worktree ${worktree.path} (branch ${worktree.branch})`))

  started = (async () => {
    await options.start?.()
    const store = ctx.services.get<SessionStore>(SESSIONS_SERVICE)
    if (options.resume || options.continue) {
      if (!store) throw new AgentError('E_STATE', 'resuming needs the session store (extension sessions)')
      const record =
        options.resume !== undefined
          ? await store.resolve(options.resume)
          : options.continue === true
            ? await store.latest({ source: 'cli' })
            : await store.resolve(options.continue!)
      const wanted = options.resume ?? (options.continue === true ? 'the latest CLI session' : options.continue)
      if (!record) throw new AgentError('E_NOT_FOUND', `no session matches ${wanted === 'the latest CLI session' ? wanted : `"${wanted}"`}; starting a new one`)
      if (record.endedAt) await store.reopen(record.id)
      chat.adopt(record)
      const recent = await store.messages(record.id, { limit: 4 })
      transcript.line(theme.dim(`resumed ${record.title ? `"${record.title}" ` : ''}(${record.id}, ${record.messageCount} messages)`))
      for (const m of recent) {
        if ((m.role !== 'user' && m.role !== 'assistant') || typeof m.content !== 'string' || !m.content) continue
        const text = m.content.length > 300 ? m.content.slice(0, 299) + '…' : m.content
        transcript.line(theme.dim(`${m.role === 'user' ? '›' : ' '} ${text}`))
      }
    }
  })()
  started
    .then(() => chat.refreshModelInfo())
    .catch((error) => transcript.line(theme.warn(shownError(error))))
    .finally(() => status())

  await finished

  // --- leave -----------------------------------------------------------------------------------
  clearInterval(ticker)
  activity.stop()
  approvals.denyAll()
  questions.cancelAll()
  ctx.signal.removeEventListener('abort', onAbort)
  stdin.off('keypress', onKey)
  stdout.off('resize', onResize)
  await chat.close().catch(() => undefined)
  unrouteLogs?.()
  screen.stop()
  stdin.setRawMode?.(false)
  stdin.pause()
  if (chat.sessionId) stdout.write(theme.dim(`session ${chat.sessionId}${chat.title() ? ` "${chat.title()}"` : ''} saved; continue it with: agent --resume ${chat.sessionId}`) + '\n')
  if (worktree) stdout.write(theme.dim(await worktree.finish().catch((e) => `worktree: ${errorMessage(e)}`)) + '\n')
  return 0
}
