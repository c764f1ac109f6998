// In-process harness for the Slack adapter: a real test kernel (gateway, gateway-auth, delivery,
// state-db, the real runtime with sessions and the OpenAI-compatible provider against a scripted
// model, slash-commands, slack), the official SDK clients against a loopback fake of Slack, and the
// adapter started with a logger that records every line as written (nothing redacted).

import type { TestContext } from 'node:test'
import type { AdapterContext, ExtensionDefinition, GatewayAdapter } from '../../../sdk/index.ts'
import { createTestKernel, lastUser, modelPrompts, recordingGateway, recordingLog, registeredAdapter, startScriptedModel, stopWhenTestEnds, type RecordingGateway, type ScriptedModelServer, type ScriptedTurn, type TestKernel } from '../../../sdk/testing/index.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'
import { startFakeSlack, USERS, type FakeSlack } from './fake-slack.ts'

export const BOT_TOKEN = 'xoxb-1111111111-2222222222222-fakeslackbottoken0001'
export const APP_TOKEN = 'xapp-1-A0TESTAPP-3333333333333-fakeslackapptoken0001'
export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'sessions', 'model-resolver', 'provider-openai-compat', 'runtime', 'slash-commands', 'slack']
export const LONG_MARKER = 'long report'

/** The scripted model's answer: `answer to: <prompt>`, or a long markdown text with a code block. */
export function answerFor(prompt: string): string {
  if (prompt.includes(LONG_MARKER)) {
    const prose = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: **the quick brown fox** jumps over the lazy dog ${'and runs on '.repeat(12)}`).join('\n\n')
    const code = Array.from({ length: 150 }, (_, i) => `    print("line ${i} of the program")`).join('\n')
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
  /** Built-in extensions besides CORE. */
  builtins?: string[]
  /** The scripted model's turn for a request (default: answerFor the last user message). */
  respond?: (body: any) => ScriptedTurn
  fake?: FakeSlack
}

export interface Harness {
  fake: FakeSlack
  model: ScriptedModelServer
  k: TestKernel
  adapter: GatewayAdapter
  log: ReturnType<typeof recordingLog>
  /** connectionLost calls the adapter made to the gateway. */
  lost: RecordingGateway['lost']
  /** Messages the adapter reported as dropped on purpose. */
  drops: RecordingGateway['drops']
  context(): AdapterContext
  /** Starts the adapter (stopped in t.after). */
  start(): Promise<void>
  prompts(): string[]
  /** Waits until `channel` (optionally one thread) has at least `count` bot messages; returns their texts. */
  posted(channel: string, count?: number, thread?: string): Promise<string[]>
}

export const DEFAULT_ENV = {
  SLACK_ALLOWED_USERS: USERS.alice,
  SLACK_GROUP_ALLOWED_USERS: `${USERS.alice},${USERS.bob}`,
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const fake = options.fake ?? (await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN }))
  if (!options.fake) t.after(() => fake.close())
  const model = await startScriptedModel({ respond: options.respond ?? ((body) => ({ text: answerFor(lastUser(body)) })) })
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: [...CORE, ...(options.builtins ?? [])],
    extensions: options.extensions ?? [],
    ...(options.dotenv ? { dotenv: options.dotenv } : {}),
    config: {
      gateway: { human_delay: { min_ms: 0, max_ms: 10 } },
      platforms: { slack: { extra: { connect_timeout_seconds: 10, ...options.extra } } },
      ...options.config,
    },
    env: {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_BASE_URL: fake.apiBase,
      ...scriptedModelEnv(model, 'sk-scripted-model-key-000'),
      ...DEFAULT_ENV,
      ...options.env,
    },
  })
  t.after(() => k.close())
  const adapter = registeredAdapter(k, 'slack')
  const log = recordingLog()
  const controller = new AbortController()
  const { lost, drops, context } = recordingGateway(k, { log, signal: controller.signal })
  return {
    fake,
    model,
    k,
    adapter,
    log,
    lost,
    drops,
    context,
    async start() {
      await adapter.start(context())
      stopWhenTestEnds(t, adapter, controller)
    },
    prompts: () => modelPrompts(model),
    async posted(channel, count = 1, thread) {
      if (!(await fake.until(() => fake.texts(channel, thread).length >= count, 15_000))) {
        throw new Error(`expected ${count} message(s) in ${channel}${thread ? ` thread ${thread}` : ''}, got ${JSON.stringify(fake.texts(channel, thread))}; all: ${JSON.stringify(fake.posted.map((p) => [p.channel, p.thread_ts]))}\nlog:\n${log.lines.join('\n')}`)
      }
      return fake.texts(channel, thread)
    },
  }
}
