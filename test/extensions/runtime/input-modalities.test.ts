// Media a model does not read: the input-modality setting (model.input_modalities, a custom
// provider's input_modalities, the known-models table, else text only), the runtime's gate that
// replaces tool images and audio with a description, audio on the two wires, and MCP audio bridged.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { acceptedModalities, audioFormat, gateToolMedia, knownInputModalities, parseInputModalities, type ChatMessage, type ModelsService } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { toWireMessages } from '../../../extensions/provider-openai-compat/wire.ts'
import { toWireBody } from '../../../extensions/provider-native-vendor/wire.ts'
import { resultContent } from '../../../extensions/mcp/bridge.ts'

const PNG = 'data:image/png;base64,iVBORw0KGgo='
const WAV = 'UklGRiwAAABXQVZF'
const toolMessage: ChatMessage = {
  role: 'tool',
  toolCallId: 'a',
  name: 'shot',
  content: [{ type: 'text', text: 'look and listen' }, { type: 'image_url', image_url: { url: PNG } }, { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } }],
}
const messages: ChatMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'mine' }, { type: 'image_url', image_url: { url: PNG } }] },
  { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'shot', arguments: '{}' }] },
  toolMessage,
]

test('accepted modalities: the setting, else the known table, else text only', () => {
  assert.deepEqual(acceptedModalities({ model: 'scripted-model' }), ['text'], 'an unknown model reads text only')
  assert.deepEqual(acceptedModalities({ model: 'scripted-model', inputModalities: ['text', 'audio'] }), ['text', 'audio'])
  assert.deepEqual(acceptedModalities({ model: 'gpt-4o', inputModalities: ['text'] }), ['text'], 'the setting beats the table')
  assert.deepEqual(knownInputModalities('anthropic/claude-sonnet-4.5'), ['text', 'image'])
  assert.deepEqual(knownInputModalities('gpt-4o-audio-preview'), ['text', 'audio'])
  assert.deepEqual(knownInputModalities('google/gemini-2.5-pro'), ['text', 'image', 'audio'])
  assert.equal(knownInputModalities('gpt-3.5-turbo'), undefined, 'a look-alike name is not known')
  assert.equal(knownInputModalities('my-claude-clone'), undefined)
})

test('input_modalities values: a list of known modalities (text implied), anything else refused', () => {
  assert.deepEqual(parseInputModalities(['image']), ['text', 'image'])
  assert.deepEqual(parseInputModalities(['text', 'image', 'audio', 'audio']), ['text', 'image', 'audio'])
  for (const bad of ['image', ['video'], [1], null, undefined, { image: true }]) assert.equal(parseInputModalities(bad), undefined, JSON.stringify(bad))
  assert.equal(audioFormat('audio/x-wav'), 'wav')
  assert.equal(audioFormat('audio/mpeg'), 'mp3')
  assert.equal(audioFormat('audio/ogg'), undefined)
})

test('gate: a model that reads everything gets the messages unchanged', () => {
  assert.equal(gateToolMedia(messages, ['text', 'image', 'audio']), messages)
})

test('gate: a text-only model gets descriptions in the tool result; user input and the transcript untouched', () => {
  const gated = gateToolMedia(messages, ['text'])
  assert.equal(gated[0], messages[0], 'user content is not gated')
  assert.deepEqual(gated[2]!.content, [
    { type: 'text', text: 'look and listen' },
    { type: 'text', text: '[image: image/png, 8 bytes — this model does not accept images]' },
    { type: 'text', text: '[audio: audio/wav, 12 bytes — this model does not accept audio]' },
  ])
  assert.equal((toolMessage.content as unknown[]).length, 3)
  assert.equal((toolMessage.content as Array<{ type: string }>)[1]!.type, 'image_url', 'the stored message keeps its media')
})

test('gate: an image model keeps the image and gets the audio described', () => {
  const content = gateToolMedia(messages, ['text', 'image'])[2]!.content as Array<{ type: string; text?: string }>
  assert.deepEqual(content.map((p) => p.type), ['text', 'image_url', 'text'])
  assert.match(content[2]!.text!, /^\[audio: audio\/wav, \d+ bytes — this model does not accept audio\]$/)
})

test('chat-completions wire: tool audio as input_audio in the user message after the results', () => {
  const wire = toWireMessages(messages)
  assert.deepEqual(wire.map((m) => m.role), ['user', 'assistant', 'tool', 'user'])
  assert.equal(wire[2]!.content, 'look and listen')
  const parts = wire[3]!.content as any[]
  assert.equal(parts[0].text, 'Images and audio returned by the tool calls above:')
  assert.deepEqual(parts[2], { type: 'input_audio', input_audio: { data: WAV, format: 'wav' } })
})

test('Messages API wire: the image inside the tool_result, the audio described', () => {
  const body = toWireBody('m', { messages }, false) as { messages: Array<{ role: string; content: any[] }> }
  const result = body.messages.flatMap((m) => m.content).find((b: any) => b.type === 'tool_result')
  assert.equal(result.content[1].type, 'image')
  assert.deepEqual(result.content[2], { type: 'text', text: '[audio: audio/wav, 12 bytes — audio is not passed to this provider]' })
})

test('MCP audio: wav and mp3 become input_audio, another format is described', () => {
  const { text, images } = resultContent({ content: [{ type: 'audio', mimeType: 'audio/wav', data: WAV }, { type: 'audio', mimeType: 'audio/mpeg', data: 'SUQz' }, { type: 'audio', mimeType: 'audio/ogg', data: 'T2dnUw==' }] }, 'sound')
  assert.deepEqual(images, [{ type: 'input_audio', input_audio: { data: WAV, format: 'wav' } }, { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } }])
  assert.equal(text, '[audio: audio/ogg, 4 bytes, not passed on (not wav or mp3)]')
})

test('resolver: model.input_modalities and a custom provider entry reach the client; a bad value is ignored', async (t) => {
  const server = await startScriptedModel()
  t.after(() => server.close())
  const kernel = async (config: Record<string, unknown>) => {
    const tk = await createTestKernel({ builtins: ['provider-openai-compat', 'model-resolver'], env: {}, config })
    t.after(() => tk.close())
    return tk.kernel.services.require<ModelsService>('models')
  }
  const configured = await kernel({ model: { provider: 'custom', base_url: server.url, default: 'scripted-model', input_modalities: ['image', 'audio'] } })
  assert.deepEqual((await configured.resolve()).inputModalities, ['text', 'image', 'audio'])
  const entry = await kernel({ model: { provider: 'custom:local', default: 'scripted-model' }, custom_providers: [{ name: 'local', base_url: server.url, input_modalities: ['image'] }] })
  assert.deepEqual((await entry.resolve()).inputModalities, ['text', 'image'])
  const unset = await kernel({ model: { provider: 'custom', base_url: server.url, default: 'scripted-model' }, custom_providers: [{ name: 'bad', base_url: server.url, input_modalities: 'image' }] })
  assert.equal((await unset.resolve()).inputModalities, undefined)
  assert.equal((await unset.resolve({ provider: 'custom:bad', model: 'scripted-model' })).inputModalities, undefined)
})

test('resolver: the Messages API and code-assistant clients carry model.input_modalities too', async (t) => {
  for (const [provider, builtin, env] of [
    ['anthropic', 'provider-native-vendor', { ANTHROPIC_API_KEY: 'sk-ant-test-123456' }],
    ['copilot', 'provider-code-assistant', { COPILOT_GITHUB_TOKEN: 'gho_test1234567890' }],
  ] as const) {
    const tk = await createTestKernel({ builtins: ['provider-openai-compat', builtin, 'model-resolver'], env, config: { model: { provider, default: 'some-model', input_modalities: ['audio'] }, extensions: { 'provider-code-assistant': { gh_command: '' } } } })
    t.after(() => tk.close())
    const client = await tk.kernel.services.require<ModelsService>('models').resolve()
    assert.deepEqual([client.provider, client.inputModalities], [provider, ['text', 'audio']])
  }
})
