// What extension authors import as `agent/sdk`.

export * from './types.ts'
export * from './model.ts'
export * from './hooks.ts'
export * from './errors.ts'
export * from './define.ts'
export * from './commands.ts'
export * from './http.ts'
export * from './redact.ts'
export * from './services.ts'
export * from './storage.ts'
export * from './models.ts'
export * from './chat.ts'
