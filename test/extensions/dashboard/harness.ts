// Starts the dashboard in-process the way `agent gateway run` does (kernel ready, then the
// `dashboard` adapter) and gives tests a signed-in client: cookie and CSRF token from a real
// one-time link.

import type { TestContext } from 'node:test'
import type { AdapterContext, HttpService, Services } from '../../../sdk/index.ts'
import { createTestKernel, type TestKernel } from '../../../sdk/testing/index.ts'
import { mintSignInToken } from '../../../extensions/dashboard/sign-in.ts'

export const BUILTINS = ['http', 'state-db', 'sessions', 'dashboard']

export interface Dashboard {
  url: string
  test: TestKernel
  /** A fresh sign-in: the cookie header value and the CSRF token. */
  signIn(): Promise<{ cookie: string; csrf: string }>
  request(path: string, init?: RequestInit & { cookie?: string; csrf?: string }): Promise<{ status: number; headers: Headers; body: any }>
}

export async function startDashboard(t: TestContext, options: { env?: Record<string, string | undefined>; config?: Record<string, unknown>; builtins?: string[]; home?: string } = {}): Promise<Dashboard> {
  const test = await createTestKernel({ builtins: options.builtins ?? BUILTINS, config: options.config, home: options.home, env: { DASHBOARD_ENABLED: 'true', DASHBOARD_PORT: '0', ...options.env } })
  t.after(() => test.close())
  const failed = test.kernel.extensions().filter((e) => e.state === 'failed')
  if (failed.length) throw new Error(`extensions failed: ${failed.map((e) => `${e.name}: ${e.reason}`).join('; ')}`)
  await test.kernel.start('command')
  const adapter = test.kernel.registries.adapters.get('dashboard')!
  const ctx: AdapterContext = { signal: new AbortController().signal, log: test.kernel.log, settings: test.kernel.settings, services: test.kernel.services as Services }
  await adapter.start(ctx)
  t.after(() => adapter.stop())
  const url = test.kernel.services.require<HttpService>('http').address('dashboard')!.url
  const request: Dashboard['request'] = async (path, init = {}) => {
    const headers = new Headers(init.headers)
    if (init.cookie) headers.set('cookie', init.cookie)
    if (init.csrf) headers.set('x-csrf-token', init.csrf)
    const res = await fetch(url + path, { ...init, headers, redirect: 'manual' })
    const text = await res.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: res.status, headers: res.headers, body }
  }
  const signIn = async () => {
    const token = mintSignInToken(test.kernel.settings.home)
    const res = await request(`/auth?token=${token}`)
    if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`)
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!
    const me = await request('/api/me', { cookie })
    return { cookie, csrf: me.body.csrf as string }
  }
  return { url, test, signIn, request }
}
