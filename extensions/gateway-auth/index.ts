// Gateway authorisation: allowlists, allow-all switches, group lists and DM pairing, default deny.
// Provides the `gateway-auth` service the gateway consults for every inbound chat message.

import { defineExtension, errorMessage, GATEWAY_AUTH_SERVICE, STORAGE_SERVICE, type AuthDecision, type GatewayAuthService, type StorageService } from 'agent/sdk'
import { checkAllowlists, envPrefix, namedInAllowlist } from './allowlist.ts'
import { PG_MIGRATIONS } from './pairing-pg.ts'
import { openPairingStore } from './pairing-store.ts'

interface AuthConfig {
  unauthorized_dm_behavior?: 'pair' | 'ignore'
}

export default defineExtension<AuthConfig>({
  name: 'gateway-auth',
  version: '1.0.0',
  description: 'Who may use the gateway: allowlists and DM pairing (default deny)',
  configKey: 'gateway.auth',
  // Pairings are kept where `storage` says: state.db, or PostgreSQL shared by several gateways.
  dependsOn: ['storage'],
  config: {
    type: 'object',
    properties: { unauthorized_dm_behavior: { enum: ['pair', 'ignore'] } },
    additionalProperties: false,
  },
  setup(api) {
    api.services.require<StorageService>(STORAGE_SERVICE).declare('gateway-auth', PG_MIGRATIONS)
    const store = openPairingStore(api.services)
    let warned = false

    /** Pairing lookups fail closed: a store that cannot answer grants nothing. */
    const paired = async (platform: string, userId: string) => {
      try {
        return await store.isApproved(platform, userId)
      } catch (error) {
        api.log.warn(`pairing lookup failed, treating ${platform} user as unpaired: ${errorMessage(error)}`)
        return false
      }
    }

    const service: GatewayAuthService = {
      async authorize(source): Promise<AuthDecision> {
        if (source.platform === 'webhook') return { allowed: true, reason: 'webhook events are authenticated by their signature' }
        if (source.platform === 'homeassistant') return { allowed: true, reason: 'Home Assistant events come over the connection authenticated by HASS_TOKEN' }
        const verdict = checkAllowlists(api.settings, source)
        if (verdict.allowed) return { allowed: true, reason: verdict.reason }
        const dm = (source.chatType ?? 'dm') === 'dm'
        if (dm && source.userId && (await paired(source.platform, source.userId))) return { allowed: true, reason: 'paired' }
        if (!verdict.configured && !warned) {
          warned = true
          api.log.warn(`no allowlist configured for ${source.platform} (${envPrefix(source.platform)}_ALLOWED_USERS or GATEWAY_ALLOWED_USERS): unknown users are denied`)
        }
        const perPlatform = api.settings.get<string>(`platforms.${source.platform}.unauthorized_dm_behavior`)
        const behaviour = perPlatform ?? api.config.unauthorized_dm_behavior ?? (verdict.configured ? 'ignore' : 'pair')
        return { allowed: false, reason: verdict.reason, action: dm && behaviour === 'pair' ? 'pair' : 'ignore' }
      },
      namesUser: (source) => namedInAllowlist(api.settings, source),
      requestPairing: (source) => store.request(source),
      approve: (code) => store.approve(code),
      revoke: (platform, userId) => store.revoke(platform, userId),
      pending: () => store.pending(),
      approved: () => store.approved(),
    }
    api.services.provide<GatewayAuthService>(GATEWAY_AUTH_SERVICE, service)
  },
})
