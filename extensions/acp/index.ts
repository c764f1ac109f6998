// Editor integration: `agent acp` runs the agent as an Agent Client Protocol agent on stdio, for
// editors such as Zed, VS Code and JetBrains IDEs. The ACP SDK and the server load only when the
// command runs; setup registers the command and two late hook taps that tell a running ACP turn
// when a tool call really starts and what it returned.

import { agentVersion, defineExtension } from 'agent/sdk'
import { turnHooksOf } from './turn-hooks.ts'

/** After every other guard and rewrite: only calls that really run, and their final results. */
const LAST_STAGE = 1000

export default defineExtension({
  name: 'acp',
  version: '1.0.0',
  description: 'Editor integration: the agent as an ACP (Agent Client Protocol) agent over stdio',
  setup(api) {
    api.hooks.beforeToolCall.tap({ stage: LAST_STAGE }, (event) => {
      turnHooksOf(event.session.extra)?.toolStarting(event.callId)
      return undefined
    })

    api.commands.register({
      name: 'acp',
      category: 'Editors',
      description: 'Serve the agent to an editor over ACP (JSON-RPC on stdin/stdout); the editor starts it',
      cli: {
        stdio: 'protocol',
        options: {
          provider: { type: 'string', describe: 'Provider for every session (default: the configured one)' },
          model: { type: 'string', describe: 'Model for every session (default: the configured one)' },
        },
        examples: [
          ['agent acp', 'what an editor runs; Zed settings.json: "agent_servers": {"agent": {"type": "custom", "command": "agent", "args": ["acp"]}} (see extensions/acp/README.md)'],
          ['agent acp --model gpt-4o', 'the same with another default model (switchable per session in the editor)'],
        ],
        async run(ctx) {
          const { serveAcp } = await import('./server.ts')
          await serveAcp(ctx, {
            version: agentVersion(),
            provider: typeof ctx.argv.provider === 'string' ? ctx.argv.provider : undefined,
            model: typeof ctx.argv.model === 'string' ? ctx.argv.model : undefined,
            log: api.log,
          })
        },
      },
    })
  },
})
