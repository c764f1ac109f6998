// The runtime's own cost, with the model taken out: (1) per turn of the loop with an in-process
// zero-latency model (a plain answer; a turn with one tool call), with and without session writes,
// at state_db.synchronous full and normal; the same over the scripted HTTP model through the real
// provider; (2) one stored message; (3) FTS search over 1,000,000 stored messages, generated in bulk
// in one transaction, through the sessions service. Prints figures; asserts nothing.

import { rmSync } from 'node:fs'
import { DATABASE_SERVICE, RUNTIME_SERVICE, SESSIONS_SERVICE, defineExtension, type DatabaseService, type ModelClient, type ModelResponse, type RuntimeService, type SessionStore } from '../../sdk/index.ts'
import { createTestKernel, startScriptedModel } from '../../sdk/testing/index.ts'

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
const fmt = (values: number[]) => `p50 ${pct(values, 50).toFixed(3)} ms, p99 ${pct(values, 99).toFixed(3)} ms`

/** A model that answers at once, in process: every other call asks for the `noop` tool when `tools` is set. */
function instantModel(): ModelClient {
  let n = 0
  const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 }
  return {
    provider: 'instant',
    model: 'instant-model',
    contextLength: 1_000_000,
    async complete(request): Promise<ModelResponse> {
      const last = request.messages.at(-1)
      if (request.tools?.length && last?.role === 'user') return { content: null, toolCalls: [{ id: `c${++n}`, name: 'noop', arguments: '{}' }], usage }
      return { content: 'done', toolCalls: [], usage }
    },
  }
}

const instant = defineExtension({
  name: 'bench-instant',
  setup(api) {
    api.hooks.resolveModel.tap(() => instantModel())
    api.tools.register({ name: 'noop', description: 'does nothing', parameters: { type: 'object' }, execute: () => 'ok' })
  },
})

async function loopBench(label: string, options: { synchronous: 'full' | 'normal'; persist: boolean; tools: boolean; turns: number }) {
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions', 'runtime'], extensions: [instant], config: { state_db: { synchronous: options.synchronous } } })
  try {
    const runtime = tk.kernel.services.require<RuntimeService>(RUNTIME_SERVICE)
    const toolsets = options.tools ? undefined : ['none']
    const first = await runtime.run({ input: 'warm up', persist: options.persist, toolsets })
    const times: number[] = []
    for (let i = 0; i < 30 + options.turns; i++) {
      const started = performance.now()
      await runtime.run({ input: `turn ${i}`, persist: options.persist, toolsets, ...(options.persist ? { sessionId: first.sessionId } : {}) })
      if (i >= 30) times.push(performance.now() - started)
    }
    console.log(`loop, ${label}: ${fmt(times)} per turn (${options.turns} turns)`)
  } finally {
    await tk.close()
  }
}

async function httpLoopBench(turns: number) {
  const model = await startScriptedModel({ record: false, respond: () => ({ text: 'done' }) })
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat'], env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, AGENT_MODEL: 'scripted-model' } })
  try {
    const runtime = tk.kernel.services.require<RuntimeService>(RUNTIME_SERVICE)
    const client = await tk.kernel.services.require<any>('models').resolve()
    const raw: number[] = []
    for (let i = 0; i < 30 + turns; i++) {
      const started = performance.now()
      await client.complete({ messages: [{ role: 'user', content: 'x' }] })
      if (i >= 30) raw.push(performance.now() - started)
    }
    const first = await runtime.run({ input: 'warm up', toolsets: ['none'] })
    const times: number[] = []
    for (let i = 0; i < 30 + turns; i++) {
      const started = performance.now()
      await runtime.run({ input: `turn ${i}`, sessionId: first.sessionId, toolsets: ['none'] })
      if (i >= 30) times.push(performance.now() - started)
    }
    console.log(`loop over the scripted HTTP model (custom provider, stored, sync full): ${fmt(times)} per turn; the bare model call alone: ${fmt(raw)}`)
  } finally {
    await tk.close()
    await model.close()
  }
}

async function appendBench(synchronous: 'full' | 'normal', count: number) {
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'], config: { state_db: { synchronous } } })
  try {
    const store = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
    const session = await store.create()
    const times: number[] = []
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      await store.append(session.id, [{ role: 'assistant', content: `a stored answer number ${i} with a few words in it` }], { usage: { inputTokens: 10, outputTokens: 5 }, apiCalls: 1 })
      times.push(performance.now() - started)
    }
    console.log(`append one message (sync ${synchronous}): ${fmt(times)} (${count} appends)`)
  } finally {
    await tk.close()
  }
}

/** Deterministic pseudo-random words: a vocabulary of 20,000 with a skewed frequency. */
function wordSource(seed = 42) {
  let state = seed
  const next = () => ((state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'te', 'vo', 'zu', 'pi', 'da', 'fe', 'go', 'hu', 'ji', 'ba']
  const vocabulary = Array.from({ length: 20_000 }, (_, i) => {
    let word = ''
    for (let n = i + 1; n > 0; n = Math.floor(n / 16)) word += syllables[n % 16]
    return word
  })
  return { next, word: () => vocabulary[Math.floor(vocabulary.length * next() ** 3)]! }
}

async function ftsBench(total: number) {
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'] })
  try {
    const store = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
    await store.list() // migrate
    const db = tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db()
    const words = wordSource()
    const perSession = 1000
    const started = performance.now()
    const insertSession = db.prepare(`INSERT INTO sessions (id, source, started_at, updated_at, message_count) VALUES (?, 'cli', ?, ?, ?)`)
    const insertMessage = db.prepare(`INSERT INTO messages (session_id, role, content, created_at) VALUES (?, ?, ?, ?)`)
    db.transaction(() => {
      for (let s = 0; s < total / perSession; s++) {
        const id = `bench_${String(s).padStart(5, '0')}`
        insertSession.run(id, s, s, perSession)
        for (let m = 0; m < perSession; m++) {
          const n = s * perSession + m
          const length = 8 + Math.floor(words.next() * 24)
          const text: string[] = []
          for (let w = 0; w < length; w++) text.push(words.word())
          if (n % 100_000 === 7) text.push('zanzibar') // 10 messages in total
          if (n % 100 === 3) text.push('deployment') // 1 % of messages
          insertMessage.run(id, m % 2 ? 'assistant' : 'user', text.join(' '), n)
        }
      }
    }).immediate()
    const loadSeconds = (performance.now() - started) / 1000
    const size = db.prepare('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()').pluck().get() as number
    console.log(`fts: generated ${total.toLocaleString('en')} messages in ${loadSeconds.toFixed(1)} s (one transaction), state.db ${(size / 1024 / 1024).toFixed(0)} MB`)
    const queries: Array<[string, string, Record<string, unknown>?]> = [
      ['a rare word (10 hits)', 'zanzibar'],
      ['a 1 % word, top 20 by rank', 'deployment'],
      ['a 1 % word and the most common word', 'deployment lo'],
      ['a prefix', 'zanzi*'],
      ['a 1 % word in one session', 'deployment', { sessionId: 'bench_00500' }],
      ['the most common word, top 20 by rank', 'lo'],
      ['the most common word, 20 newest', 'lo', { order: 'recent' }],
      ['a 1 % word, 20 newest', 'deployment', { order: 'recent' }],
    ]
    for (const [label, query, options] of queries) {
      const times: number[] = []
      let hits = 0
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now()
        hits = (await store.search(query, { limit: 20, ...options })).length
        times.push(performance.now() - t0)
      }
      console.log(`fts search over ${total.toLocaleString('en')} messages, ${label} "${query}": median ${pct(times, 50).toFixed(1)} ms (${hits} hits returned)`)
    }
  } finally {
    const home = tk.home
    await tk.close()
    rmSync(home, { recursive: true, force: true })
  }
}

await loopBench('plain answer, stored, sync full', { synchronous: 'full', persist: true, tools: false, turns: 300 })
await loopBench('plain answer, stored, sync normal', { synchronous: 'normal', persist: true, tools: false, turns: 300 })
await loopBench('plain answer, not stored', { synchronous: 'full', persist: false, tools: false, turns: 300 })
await loopBench('one tool call + answer (2 model calls), stored, sync full', { synchronous: 'full', persist: true, tools: true, turns: 300 })
await loopBench('one tool call + answer (2 model calls), not stored', { synchronous: 'full', persist: false, tools: true, turns: 300 })
await httpLoopBench(200)
await appendBench('full', 500)
await appendBench('normal', 500)
await ftsBench(Number(process.env.FTS_MESSAGES ?? 1_000_000))
