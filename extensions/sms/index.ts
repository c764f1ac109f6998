// The SMS adapter (Twilio wire protocol): inbound form-encoded POST /sms/twilio on the `webhook`
// listener, signature checked against SMS_WEBHOOK_URL, messages from our own number ignored (echo
// loops), everything else handed to the gateway (allowlists, pairing, one session per number);
// replies through the provider's REST API. Phone numbers never reach a log line unredacted.

import {
  ConfigError, defineAdapter, defineExtension, envSwitchOn, errorMessage, GATEWAY_SERVICE, HttpError, parseFormBounded, platformEnabled, readBody, redactPhone, redactPhonesIn, transcribeAudio,
  type GatewayAdapter, type GatewayService, type HttpContext, type Logger, type Settings,
} from 'agent/sdk'
import { MAX_SMS_LENGTH, smsParts } from './format.ts'
import { audioMedia, mmsAudio } from './mms.ts'
import { DEFAULT_API_BASE, sendSms, type SmsAccount } from './rest.ts'
import { verifyTwilioSignature } from './signature.ts'

const BODY_LIMIT = 64 * 1024
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
const normalise = (phone: string) => phone.replace(/[^\d+]/g, '')

export function smsEnabled(settings: Settings): boolean {
  return platformEnabled(settings, 'sms', 'SMS_ENABLED', () => Boolean(settings.env('TWILIO_ACCOUNT_SID') && settings.env('TWILIO_AUTH_TOKEN') && settings.env('TWILIO_PHONE_NUMBER')))
}

interface Running {
  account: SmsAccount
  webhookUrl?: string
  log: Logger
  gateway: GatewayService
}

function twiml(ctx: HttpContext, status = 200): void {
  ctx.status = status
  ctx.type = 'application/xml'
  ctx.body = EMPTY_TWIML
}

export default defineExtension({
  name: 'sms',
  version: '1.0.0',
  description: 'SMS through the Twilio REST API and inbound webhooks',
  dependsOn: ['http', 'gateway'],
  setup(api) {
    let running: Running | undefined
    const safeLog = (): Logger => {
      const log = running?.log ?? api.log
      return {
        debug: (m) => log.debug(redactPhonesIn(m)),
        info: (m) => log.info(redactPhonesIn(m)),
        warn: (m) => log.warn(redactPhonesIn(m)),
        error: (m) => log.error(redactPhonesIn(m)),
      }
    }

    async function inbound(ctx: HttpContext): Promise<void> {
      const state = running
      if (!state) throw new HttpError(503, 'The SMS adapter is not running', { type: 'server_error', code: 'not_running' })
      const raw = await readBody(ctx, BODY_LIMIT)
      // Bounded before the signature check walks every field (sdk/form-intake.ts).
      const params = parseFormBounded(raw.toString('utf8'))
      if (state.webhookUrl && !verifyTwilioSignature(state.account.authToken, state.webhookUrl, params, ctx.get('x-twilio-signature') || undefined)) {
        safeLog().warn('rejected an SMS webhook with a missing or invalid X-Twilio-Signature')
        return twiml(ctx, 403)
      }
      const from = normalise(params.get('From') ?? '')
      const body = params.get('Body') ?? ''
      const audio = audioMedia(params)
      twiml(ctx)
      if (!from || (!body.trim() && audio.length === 0)) return
      if (from === normalise(state.account.from)) {
        safeLog().debug(`ignored a message from our own number ${redactPhone(from)}`)
        return
      }
      safeLog().debug(`SMS from ${redactPhone(from)} (${body.length} characters)`)
      const messageId = params.get('MessageSid') ?? undefined
      // Fire and forget: the provider gets its answer now; the reply goes out through the REST API.
      // Voice notes (MMS audio) are transcribed first (mms.ts).
      Promise.all(audio.map((media, i) => transcribeAudio(api.services, mmsAudio(media, state.account, i), safeLog())))
        .then((lines) => state.gateway.dispatch({ source: { platform: 'sms', userId: from, chatId: from, chatType: 'dm' }, text: [body, ...lines].filter((l) => l.trim()).join('\n'), messageId, receivedAt: Date.now() }))
        .then((result) => safeLog().debug(`SMS from ${redactPhone(from)}: ${result.status}`))
        .catch((error) => safeLog().error(`SMS from ${redactPhone(from)} failed: ${errorMessage(error)}`))
    }

    if (smsEnabled(api.settings)) {
      api.endpoints.register({ listener: 'webhook', method: 'POST', path: '/sms/twilio', auth: 'none', handler: inbound })
    }

    const adapter: GatewayAdapter = {
      ...defineAdapter({
        name: 'sms',
        description: 'SMS (Twilio): POST /sms/twilio inbound, REST API outbound',
        enabled: smsEnabled,
        async start(context) {
          const env = (name: string) => context.settings.env(name)
          const accountSid = env('TWILIO_ACCOUNT_SID')
          const authToken = env('TWILIO_AUTH_TOKEN')
          const from = env('TWILIO_PHONE_NUMBER')
          if (!accountSid || !authToken || !from) throw new ConfigError('the SMS adapter needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PHONE_NUMBER')
          const webhookUrl = env('SMS_WEBHOOK_URL')
          if (!webhookUrl) {
            if (!envSwitchOn(env('SMS_INSECURE_NO_SIGNATURE'))) {
              throw new ConfigError('refusing to start the SMS adapter without SMS_WEBHOOK_URL (the public URL the provider signs); set SMS_INSECURE_NO_SIGNATURE=true to accept unsigned requests')
            }
            context.log.warn('SMS_INSECURE_NO_SIGNATURE=true: inbound SMS webhooks are NOT authenticated')
          }
          const gateway = context.services.get<GatewayService>(GATEWAY_SERVICE)
          if (!gateway) throw new ConfigError('the SMS adapter needs the gateway service')
          running = { account: { accountSid, authToken, from, baseUrl: env('TWILIO_API_BASE_URL') ?? DEFAULT_API_BASE }, webhookUrl, log: context.log, gateway }
          safeLog().info(`SMS adapter ready for ${redactPhone(from)}`)
        },
        async stop() {
          running = undefined
        },
        async send(chatId, text) {
          // Delivery from outside a running gateway (cron in a CLI process) uses the same account.
          const account = running?.account ?? accountFrom(api.settings)
          const parts = smsParts(text)
          for (const part of parts) await sendSms(account, chatId, part)
          safeLog().debug(`sent ${parts.length} SMS part(s) to ${redactPhone(chatId)}`)
        },
      }),
      maxMessageLength: MAX_SMS_LENGTH,
      splitsLongMessages: true,
      // HTTP intake (Twilio's webhook): every gateway instance takes it (no lease).
      everyInstance: true,
    }
    api.adapters.register(adapter)
  },
})

function accountFrom(settings: Settings): SmsAccount {
  const accountSid = settings.env('TWILIO_ACCOUNT_SID')
  const authToken = settings.env('TWILIO_AUTH_TOKEN')
  const from = settings.env('TWILIO_PHONE_NUMBER')
  if (!accountSid || !authToken || !from) throw new ConfigError('SMS delivery needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_PHONE_NUMBER')
  return { accountSid, authToken, from, baseUrl: settings.env('TWILIO_API_BASE_URL') ?? DEFAULT_API_BASE }
}
