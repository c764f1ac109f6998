// MCP images and audio through a real `agent chat -q`: server-everything's tiny image and the
// fixture server's wav clip reach a scripted model configured to read images and audio
// (`model.input_modalities`) as image_url and input_audio parts; the same model without the setting
// (an unknown model reads text only) gets a short description of each instead.

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../helpers/agent-process.ts'
import { EVERYTHING_BIN } from './everything-server.ts'

const FIXTURE = fileURLToPath(new URL('../../fixtures/mcp/stdio-server.mjs', import.meta.url))

describe('tool images and audio reach only a model that reads them (agent chat -q, stdio)', () => {
  let home: string
  let model: ScriptedModelServer
  const agent = (args: string[]) => runAgent(args, { home, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url }, logLevel: 'error', timeoutMs: 60_000 })
  /** Sets (or, without an argument, removes) the `model` mapping, keeping the MCP servers. */
  const configure = (model?: Record<string, unknown>) => {
    const config = YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8'))
    if (model) config.model = model
    else delete config.model
    writeFileSync(join(home, 'config.yaml'), YAML.stringify(config))
  }

  /** One chat -q calling both media tools; returns the messages of the request after their results. */
  async function chatWithMedia(): Promise<any[]> {
    model.enqueue({ toolCalls: [{ id: 'img', name: 'mcp__everything__get-tiny-image', arguments: {} }, { id: 'snd', name: 'mcp__sounds__beep', arguments: {} }] }, { text: 'Seen and heard.' })
    const before = model.requests.length
    const run = await agent(['chat', '-q', 'show me and play it', '--json'])
    assert.equal(run.code, 0, run.stderr)
    assert.equal(jsonOf(run).answer, 'Seen and heard.')
    const requests = model.requests.slice(before).filter((r) => r.path.endsWith('/chat/completions'))
    assert.equal(requests.length, 2)
    return requests[1]!.body.messages
  }
  const mediaParts = (messages: any[]) => messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type !== 'text')
  const toolText = (messages: any[], id: string) => messages.find((m) => m.role === 'tool' && m.tool_call_id === id)?.content as string

  before(async () => {
    home = makeTempHome()
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    model = await startScriptedModel()
    for (const [name, ...command] of [['everything', process.execPath, EVERYTHING_BIN, 'stdio'], ['sounds', process.execPath, FIXTURE, '--audio']]) {
      const added = await agent(['mcp', 'add', name!, '--', ...command])
      assert.equal(added.code, 0, added.stderr)
    }
  })
  after(async () => {
    await model.close()
    rmSync(home, { recursive: true, force: true })
  })

  it('agent config set refuses an unknown modality and changes nothing; a valid list is saved', async () => {
    const before = readFileSync(join(home, 'config.yaml'), 'utf8')
    const refused = await agent(['config', 'set', 'model.input_modalities', '[video]'])
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /must be one of text, image, audio \(got "video"\).*was not changed/)
    assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), before)
    const saved = await agent(['config', 'set', 'model.input_modalities', '[image, audio]'])
    assert.equal(saved.code, 0, saved.stderr)
    assert.deepEqual(YAML.parse(readFileSync(join(home, 'config.yaml'), 'utf8')).model, { input_modalities: ['image', 'audio'] })
  })

  it('a model configured to read images and audio gets an image_url and an input_audio part', async () => {
    const messages = await chatWithMedia()
    assert.equal(toolText(messages, 'snd'), 'a beep')
    const parts = mediaParts(messages)
    assert.deepEqual(parts.map((p: any) => p.type), ['image_url', 'input_audio'])
    assert.match(parts[0].image_url.url, /^data:image\/png;base64,iVBORw0KGgo/)
    assert.equal(parts[1].input_audio.format, 'wav')
    assert.equal(Buffer.from(parts[1].input_audio.data, 'base64').subarray(0, 4).toString(), 'RIFF')
  })

  it('an image-only model gets the image and a description of the audio', async () => {
    configure({ input_modalities: ['image'] })
    const messages = await chatWithMedia()
    assert.deepEqual(mediaParts(messages).map((p: any) => p.type), ['image_url'])
    assert.equal(toolText(messages, 'snd'), 'a beep\n[audio: audio/wav, 52 bytes — this model does not accept audio]')
  })

  it('a model not configured (unknown: text only) gets descriptions, no media', async () => {
    configure()
    const messages = await chatWithMedia()
    assert.deepEqual(mediaParts(messages), [])
    assert.match(toolText(messages, 'img'), /\[image: image\/png, \d+ bytes — this model does not accept images\]/)
    assert.match(toolText(messages, 'snd'), /\[audio: audio\/wav, 52 bytes — this model does not accept audio\]/)
  })
})
