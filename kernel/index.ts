// The kernel's public surface (for the CLI, tests and embedders; extensions use sdk/ instead).

export { createKernel, type Kernel, type KernelOptions, type InlineExtension, type ReloadResult } from './kernel.ts'
export { resolveAgentHome, homePaths } from './config/home.ts'
export { FileSettings } from './config/settings.ts'
export { Registry } from './registry.ts'
