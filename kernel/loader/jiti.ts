// The kernel's view of the loader: the shared jiti instance (kernel/loader/bootstrap.mjs). A hot
// reload does not forget its modules: the new version is built whole in version.ts, with its own.

export { AGENT_ROOT, SDK_ALIASES, sharedJiti } from './bootstrap.mjs'
