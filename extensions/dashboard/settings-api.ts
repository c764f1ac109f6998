// The Settings page's API: the configuration in effect with secrets masked, and a change checked
// and written exactly as `agent config set` does (the config service; comments kept).

import { CONFIG_SERVICE, errorMessage, HttpError, readJson, redactSecrets, type ConfigService, type ExtensionApi } from 'agent/sdk'
import type { DashboardConfig } from './options.ts'
import type { Route } from './routes.ts'

export function registerSettings(api: ExtensionApi<DashboardConfig>, route: Route): void {
  const config = () => api.services.get<ConfigService>(CONFIG_SERVICE) ?? (() => {
    throw new HttpError(503, 'The config-cli extension is not loaded', { code: 'no_config' })
  })()

  route('GET', '/api/settings', 'read', (ctx) => {
    ctx.body = { config_path: api.settings.configPath, settings: config().effective() }
  })

  route('PUT', '/api/settings', 'write', async (ctx) => {
    const body = await readJson<{ key?: unknown; value?: unknown }>(ctx, 64 * 1024)
    if (typeof body.key !== 'string' || !/^[A-Za-z0-9_.-]{1,200}$/.test(body.key)) throw new HttpError(400, 'key must be a dot path', { param: 'key' })
    if (typeof body.value !== 'string') throw new HttpError(400, 'value must be text, as `agent config set` takes it', { param: 'value' })
    try {
      await config().set(body.key, body.value)
    } catch (error) {
      if (HttpError.isInstance(error)) throw error
      throw new HttpError(400, redactSecrets(errorMessage(error), api.settings.secretValues()), { param: 'value', code: 'invalid_setting' })
    }
    const entry = config().effective().find((e) => e.key === body.key)
    ctx.body = { key: body.key, value: entry?.value ?? null, source: entry?.source ?? 'config' }
  })
}
