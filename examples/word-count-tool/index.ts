// Example: a tool extension. Drop this folder into <agent_home>/extensions/ and the agent can count
// words in a file of its working directory.

import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { defineExtension, defineTool } from 'agent/sdk'

export const wordCount = defineTool<{ path: string }>({
  name: 'word_count',
  description: 'Count the lines, words and characters of a text file in the working directory.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'File path, relative to the working directory' } },
    required: ['path'],
    additionalProperties: false,
  },
  async execute({ input, session }) {
    const text = await readFile(resolve(session.cwd, input.path), 'utf8')
    return { lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), words: text.split(/\s+/).filter(Boolean).length, characters: text.length }
  },
})

export default defineExtension({
  name: 'word-count-tool',
  version: '1.0.0',
  setup(api) {
    api.tools.register(wordCount)
  },
})
