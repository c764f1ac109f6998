// In-process harness for the Telegram adapter: a real test kernel (gateway, gateway-auth, delivery,
// state-db, the real runtime with sessions and the OpenAI-compatible provider against a scripted
// model, slash-commands, telegram), the real grammy client against a loopback fake of the Bot API, and
// the adapter started with a logger that records every line as written (nothing redacted).

import type { TestContext } from 'node:test'
import type { AdapterContext, ExtensionDefinition } from '../../../sdk/index.ts'
import { createTestKernel, lastUser, modelPrompts, recordingGateway, recordingLog, registeredAdapter, startScriptedModel, stopWhenTestEnds, type RecordingGateway, type ScriptedModelServer, type TestKernel } from '../../../sdk/testing/index.ts'
import type { TelegramAdapter } from '../../../extensions/telegram/adapter.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { startFakeTelegram, TOKEN, USERS, type FakeTelegram } from './fake-telegram.ts'

export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'sessions', 'model-resolver', 'provider-openai-compat', 'runtime', 'slash-commands', 'telegram']
export const LONG_MARKER = 'long report'

/** The scripted model's answer to a prompt: `answer to: <prompt>`, or a long text with a code block. */
export function answerFor(prompt: string): string {
  if (prompt.includes(LONG_MARKER)) {
    const prose = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(3)}with \`inline code\` and **bold**.`).join('\n\n')
    const code = Array.from({ length: 200 }, (_, i) => `    print("line ${i} of the program")`).join('\n')
    return `# Report\n\n${prose}\n\n\`\`\`python\ndef main():\n${code}\n\`\`\`\n\nThe end.`
  }
  return `answer to: ${prompt}`
}

export { lastUser, modelPrompts }

export interface HarnessOptions {
  /** Extra environment (replaces the defaults of the same name; undefined removes one). */
  env?: Record<string, string | undefined>
  extra?: Record<string, unknown>
  config?: Record<string, unknown>
  dotenv?: Record<string, string>
  extensions?: ExtensionDefinition<any>[]
  /** Built-in extensions besides CORE (`stt` …). */
  builtins?: string[]
  fake?: FakeTelegram
  token?: string
  /** A kernel home to reuse (a second gateway on the same home). */
  home?: string
}

export interface Harness {
  fake: FakeTelegram
  model: ScriptedModelServer
  k: TestKernel
  adapter: TelegramAdapter
  log: ReturnType<typeof recordingLog>
  /** connectionLost calls the adapter made to the gateway. */
  lost: RecordingGateway['lost']
  context(): AdapterContext
  /** Starts the adapter (stopped in t.after) and waits (up to 5 s) for its long poll. */
  start(): Promise<void>
  prompts(): string[]
  /** Waits until `chat` has at least `count` bot messages; returns them as read. */
  posted(chat: number | string, count?: number, ms?: number): Promise<string[]>
}

export const DEFAULT_ENV = {
  TELEGRAM_ALLOWED_USERS: String(USERS.alice.id),
  TELEGRAM_GROUP_ALLOWED_USERS: `${USERS.alice.id},${USERS.bob.id}`,
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const fake = options.fake ?? (await startFakeTelegram())
  if (!options.fake) t.after(() => fake.close())
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)), ...(lastUser(body).includes('slow question') ? { delayMs: 6000 } : {}) }) })
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: [...CORE, ...(options.builtins ?? [])],
    extensions: options.extensions ?? [],
    ...(options.home ? { home: options.home } : {}),
    ...(options.dotenv ? { dotenv: options.dotenv } : {}),
    config: {
      gateway: { human_delay: { min_ms: 0, max_ms: 10 } },
      platforms: { telegram: { extra: { poll_timeout_seconds: 5, batch_window_ms: 0, ...options.extra } } },
      ...options.config,
    },
    env: {
      TELEGRAM_BOT_TOKEN: options.token ?? TOKEN,
      TELEGRAM_API_BASE_URL: fake.apiBase,
      ...scriptedModelEnv(model, 'sk-scripted-model-key-000'),
      ...DEFAULT_ENV,
      ...options.env,
    },
  })
  t.after(() => k.close())
  const adapter = registeredAdapter<TelegramAdapter>(k, 'telegram')
  const log = recordingLog()
  const controller = new AbortController()
  const { lost, context } = recordingGateway(k, { log, signal: controller.signal })
  return {
    fake,
    model,
    k,
    adapter,
    log,
    lost,
    context,
    async start() {
      await adapter.start(context())
      stopWhenTestEnds(t, adapter, controller)
      // The backlog read is done and the long poll waits: what the test sends now is live traffic.
      await fake.until(() => fake.polling() === 1, 5000)
    },
    prompts: () => modelPrompts(model),
    async posted(chat, count = 1, ms = 15_000) {
      if (!(await fake.until(() => fake.posted(chat).length >= count, ms))) {
        throw new Error(`expected ${count} message(s) in ${chat}, got ${JSON.stringify(fake.posted(chat))}; all: ${JSON.stringify(fake.sent.map((m) => m.chatId))}\nlog:\n${log.lines.join('\n')}`)
      }
      return fake.posted(chat)
    },
  }
}
