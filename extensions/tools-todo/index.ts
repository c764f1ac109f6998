// The `todo` toolset: the model's task list for the session, shown to the user as its plan (an ACP
// editor's plan view, the interactive chat's transcript).

import { defineExtension } from 'agent/sdk'
import { todoTool } from './todo.ts'

export default defineExtension({
  name: 'tools-todo',
  version: '1.0.0',
  description: 'Task list tool: todo (the plan shown in editors and the chat)',
  setup(api) {
    api.tools.register(todoTool(api.services))
  },
})
