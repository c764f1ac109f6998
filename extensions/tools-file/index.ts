// The `file` toolset: read_file, write_file, patch and search_files, relative to the session's
// working directory.

import { defineExtension } from 'agent/sdk'
import { readFileTool } from './read.ts'
import { searchFilesTool } from './search.ts'
import { patchTool, writeFileTool } from './write.ts'

export default defineExtension({
  name: 'tools-file',
  version: '1.0.0',
  description: 'File tools: read_file, write_file, patch, search_files',
  setup(api) {
    const deps = { agentHome: api.settings.home, services: api.services }
    api.tools.register(readFileTool(deps))
    api.tools.register(writeFileTool(deps))
    api.tools.register(patchTool(deps))
    api.tools.register(searchFilesTool(deps))
  },
})
