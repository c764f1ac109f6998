// The adapter conformance suite (agent/sdk/testing) over every adapter of this area: webhook, sms and
// the fake adapter used to test the gateway core.

import { test } from 'node:test'
import { adapterConformance, createTestKernel, fakeAdapter } from '../../../sdk/testing/index.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db']
const SMS_ENV = { TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'tok-123456', TWILIO_PHONE_NUMBER: '+15550001111', SMS_WEBHOOK_URL: 'https://example.test/sms/twilio', WEBHOOK_PORT: '0' }

test('webhook adapter conformance', (t) =>
  adapterConformance(t, {
    adapter: 'webhook',
    enabled: () => createTestKernel({ builtins: [...CORE, 'webhook'], env: { WEBHOOK_PORT: '0' }, config: { platforms: { webhook: { enabled: true, extra: { routes: { a: { secret: 's' } } } } } } }),
    disabled: () => createTestKernel({ builtins: [...CORE, 'webhook'], env: { WEBHOOK_ENABLED: 'true' }, config: { platforms: { webhook: { enabled: false } } } }),
  }))

test('sms adapter conformance', (t) =>
  adapterConformance(t, {
    adapter: 'sms',
    enabled: () => createTestKernel({ builtins: [...CORE, 'sms'], env: SMS_ENV }),
    disabled: () => createTestKernel({ builtins: [...CORE, 'sms'], env: SMS_ENV, config: { platforms: { sms: { enabled: false } } } }),
  }))

test('fake adapter conformance', (t) =>
  adapterConformance(t, {
    adapter: 'fake',
    enabled: () => createTestKernel({ builtins: CORE, extensions: [fakeAdapter().definition] }),
    disabled: () => createTestKernel({ builtins: CORE, extensions: [fakeAdapter().definition], config: { platforms: { fake: { enabled: false } } } }),
  }))

test('fake adapter: no message lost across reconnects and restarts', (t) => {
  const fake = fakeAdapter()
  const chat = { userId: 'u1', chatId: 'c1' }
  return adapterConformance(t, {
    adapter: 'fake',
    enabled: () => createTestKernel({ builtins: CORE, extensions: [fakeAdapter().definition] }),
    disabled: () => createTestKernel({ builtins: CORE, extensions: [fakeAdapter().definition], config: { platforms: { fake: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) =>
        createTestKernel({ home, builtins: CORE, extensions: [fake.definition, ...extensions], env: { GATEWAY_ALLOWED_USERS: 'u1' }, config: { gateway: { reconnect: { initial_ms: 50, max_ms: 200 } } } }),
      say: (text) => fake.post(chat, text),
      said: () => fake.sent.filter((s) => s.chatId === 'c1').map((s) => s.text),
      drop: () => fake.loseConnection(),
      keepsHistory: true,
    },
  })
})
