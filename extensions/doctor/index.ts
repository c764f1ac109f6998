// `agent doctor` (every check, with per-provider connectivity, one verdict per line, exit 1 on a
// failure) and `agent status` (the same state at a glance, offline unless --check).

import { defineExtension, type CliContext } from 'agent/sdk'

export default defineExtension({
  name: 'doctor',
  version: '1.0.0',
  description: 'agent doctor and agent status',
  setup(api) {
    api.commands.register({
      name: 'doctor',
      category: 'Diagnostics',
      description: 'Check configuration, providers (connectivity), tools, gateway and storage',
      cli: {
        options: {
          json: { type: 'boolean', describe: 'Print one JSON document' },
          timeout: { type: 'number', default: 8, describe: 'Seconds each provider check may take' },
          offline: { type: 'boolean', describe: 'Skip the provider connectivity checks' },
        },
        async run(ctx: CliContext) {
          const { runDoctor } = await import('./doctor.ts')
          return runDoctor(ctx)
        },
      },
    })
    api.commands.register({
      name: 'status',
      category: 'Diagnostics',
      description: 'What is configured and running (add --check for provider connectivity)',
      cli: {
        options: {
          json: { type: 'boolean', describe: 'Print one JSON document' },
          check: { type: 'boolean', describe: 'Also check that each configured provider answers' },
          timeout: { type: 'number', default: 8, describe: 'Seconds each provider check may take' },
        },
        async run(ctx: CliContext) {
          const { runStatus } = await import('./status.ts')
          return runStatus(ctx)
        },
      },
    })
  },
})
