// In-process harness for the Discord adapter: a real test kernel (gateway, gateway-auth, delivery,
// state-db, the real runtime with sessions and the OpenAI-compatible provider against a scripted
// model, slash-commands, discord), the real discord.js client against a loopback fake of Discord, and
// the adapter started with a logger that records every line as written (nothing redacted).

import type { TestContext } from 'node:test'
import type { AdapterContext, ExtensionDefinition, GatewayAdapter } from '../../../sdk/index.ts'
import { createTestKernel, lastUser, modelPrompts, recordingGateway, recordingLog, registeredAdapter, startScriptedModel, stopWhenTestEnds, type RecordingGateway, type ScriptedModelServer, type TestKernel } from '../../../sdk/testing/index.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { startFakeDiscord, USERS, type FakeDiscord } from './fake-discord.ts'

export const TOKEN = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GdFake.discord-bot-token-0123456789abcdef'
export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'sessions', 'model-resolver', 'provider-openai-compat', 'runtime', 'slash-commands', 'discord']
export const LONG_MARKER = 'long report'

/** The scripted model's answer to a prompt: `answer to: <prompt>`, or a long text with a code block. */
export function answerFor(prompt: string): string {
  if (prompt.includes(LONG_MARKER)) {
    const prose = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(3)}`).join('\n\n')
    const code = Array.from({ length: 120 }, (_, i) => `    print("line ${i} of the program")`).join('\n')
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
  /** <agent_home>/.env contents. */
  dotenv?: Record<string, string>
  extensions?: ExtensionDefinition<any>[]
  fake?: FakeDiscord
  /** The token the adapter uses (default: the one the fake accepts). */
  token?: string
}

export interface Harness {
  fake: FakeDiscord
  model: ScriptedModelServer
  k: TestKernel
  adapter: GatewayAdapter
  log: ReturnType<typeof recordingLog>
  /** connectionLost calls the adapter made to the gateway. */
  lost: RecordingGateway['lost']
  context(): AdapterContext
  /** Starts the adapter (stopped in t.after). */
  start(): Promise<void>
  /** The prompts the model received, in order. */
  prompts(): string[]
  /** Waits until `channel` has at least `count` bot messages; returns their contents. */
  posted(channel: string, count?: number, ms?: number): Promise<string[]>
}

export const DEFAULT_ENV = {
  DISCORD_ALLOWED_USERS: USERS.alice.id,
  DISCORD_GROUP_ALLOWED_USERS: `${USERS.alice.id},${USERS.bob.id}`,
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const fake = options.fake ?? (await startFakeDiscord({ token: TOKEN, heartbeatIntervalMs: 2000 }))
  if (!options.fake) t.after(() => fake.close())
  // 'slow question' takes longer than Discord's typing indicator lasts.
  const model = await startScriptedModel({ respond: (body) => ({ text: answerFor(lastUser(body)), ...(lastUser(body).includes('slow question') ? { delayMs: 9500 } : {}) }) })
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: CORE,
    extensions: options.extensions ?? [],
    ...(options.dotenv ? { dotenv: options.dotenv } : {}),
    config: {
      gateway: { human_delay: { min_ms: 0, max_ms: 10 } },
      platforms: { discord: { extra: { connect_timeout_seconds: 10, ...options.extra } } },
      ...options.config,
    },
    env: {
      DISCORD_BOT_TOKEN: options.token ?? TOKEN,
      DISCORD_API_BASE_URL: fake.apiBase,
      ...scriptedModelEnv(model, 'sk-scripted-model-key-000'),
      ...DEFAULT_ENV,
      ...options.env,
    },
  })
  t.after(() => k.close())
  const adapter = registeredAdapter(k, 'discord')
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
    },
    prompts: () => modelPrompts(model),
    async posted(channel, count = 1, ms = 15_000) {
      if (!(await fake.until(() => fake.posted(channel).length >= count, ms))) {
        throw new Error(`expected ${count} message(s) in ${channel}, got ${JSON.stringify(fake.posted(channel))}; all: ${JSON.stringify(fake.messages.map((m) => m.channelId))}\nlog:\n${log.lines.join('\n')}`)
      }
      return fake.posted(channel)
    },
  }
}
