// What tests of extensions import as `agent/sdk/testing`.

export * from './scripted-model.ts'
export * from './test-kernel.ts'
export * from './fake-messages-api.ts'
export * from './fake-responses-api.ts'
export * from './adapter-conformance.ts'
export * from './fake-acp-agent.ts'
export * from './gateway-harness.ts'
export * from './model-prompts.ts'
export * from './recording-gateway.ts'
export * from './postgres.ts'
export * from './cli-command.ts'
