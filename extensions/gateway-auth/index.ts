// Gateway authorisation: allowlists, allow-all switches, group lists and DM pairing, default deny.
// Provides the `gateway-auth` service the gateway consults for every inbound chat message.

import { DATABASE_SERVICE, defineExtension, GATEWAY_AUTH_SERVICE, type AuthDecision, type DatabaseService, type GatewayAuthService } from 'agent/sdk'
import { checkAllowlists, envPrefix } from './allowlist.ts'
import { PairingStore } from './pairing.ts'

interface AuthConfig {
  unauthorized_dm_behavior?: 'pair' | 'ignore'
}

export default defineExtension<AuthConfig>({
  name: 'gateway-auth',
  version: '1.0.0',
  description: 'Who may use the gateway: allowlists and DM pairing (default deny)',
  configKey: 'gateway.auth',
  config: {
    type: 'object',
    properties: { unauthorized_dm_behavior: { enum: ['pair', 'ignore'] } },
    additionalProperties: false,
  },
  setup(api) {
    const store = new PairingStore(() => api.services.get<DatabaseService>(DATABASE_SERVICE))
    let warned = false

    const service: GatewayAuthService = {
      authorize(source): AuthDecision {
        if (source.platform === 'webhook') return { allowed: true, reason: 'webhook events are authenticated by their signature' }
        if (source.platform === 'homeassistant') return { allowed: true, reason: 'Home Assistant events come over the connection authenticated by HASS_TOKEN' }
        const verdict = checkAllowlists(api.settings, source)
        if (verdict.allowed) return { allowed: true, reason: verdict.reason }
        const dm = (source.chatType ?? 'dm') === 'dm'
        if (dm && source.userId && store.isApproved(source.platform, source.userId)) return { allowed: true, reason: 'paired' }
        if (!verdict.configured && !warned) {
          warned = true
          api.log.warn(`no allowlist configured for ${source.platform} (${envPrefix(source.platform)}_ALLOWED_USERS or GATEWAY_ALLOWED_USERS): unknown users are denied`)
        }
        const perPlatform = api.settings.get<string>(`platforms.${source.platform}.unauthorized_dm_behavior`)
        const behaviour = perPlatform ?? api.config.unauthorized_dm_behavior ?? (verdict.configured ? 'ignore' : 'pair')
        return { allowed: false, reason: verdict.reason, action: dm && behaviour === 'pair' ? 'pair' : 'ignore' }
      },
      requestPairing: (source) => store.request(source),
      approve: (code) => store.approve(code),
      revoke: (platform, userId) => store.revoke(platform, userId),
      pending: () => store.pending(),
      approved: () => store.approved(),
    }
    api.services.provide<GatewayAuthService>(GATEWAY_AUTH_SERVICE, service)
  },
})
