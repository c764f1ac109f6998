// The web dashboard (extension `dashboard`, listener `dashboard`, default 127.0.0.1:8646): chat,
// sessions, usage, gateway health and settings in the browser. Served by `agent gateway run` when
// DASHBOARD_ENABLED / platforms.dashboard.enabled is on (adapter `dashboard`), and by
// `agent dashboard`, which prints a one-time sign-in link (to a running gateway's dashboard if
// there is one, else it serves the dashboard itself until Ctrl-C).

import { spawn } from 'node:child_process'
import { defineExtension, HTTP_SERVICE, type AdapterContext, type CliContext, type GatewayAdapter, type HttpContext, type ExtensionApi, type HttpService, type Services } from 'agent/sdk'
import { assertBindAllowed, bindAllowed, CONFIG_SCHEMA, isEnabled, LISTENER, type DashboardConfig } from './options.ts'
import { forgetServer, recordServer, runningServer } from './running.ts'
import { ROUTES } from './route-list.ts'
import { mintSignInToken } from './sign-in.ts'

export default defineExtension<DashboardConfig>({
  name: 'dashboard',
  version: '1.0.0',
  description: 'Web dashboard: chat, sessions, usage, gateway health and settings in the browser',
  dependsOn: ['http'],
  configKey: 'platforms.dashboard',
  config: CONFIG_SCHEMA,
  setup(api) {
    // Builds the handlers where they are registered (serving them soon), so a first request does not wait.
    let warm: (() => Promise<unknown>) | undefined
    const serve = async (services: Services) => {
      assertBindAllowed(api.settings)
      await warm?.()
      const http = services.get<HttpService>(HTTP_SERVICE)
      if (!http) throw new Error('the dashboard needs the http extension, which is not loaded')
      // Another listener failing to start (a port in use) is its own adapter's failure, not ours.
      const started = await http.start().then(() => undefined, (error: unknown) => error)
      const address = http.address(LISTENER)
      if (!address) throw started ?? new Error('the dashboard listener did not start')
      const url = address.url
      recordServer(api.settings.home, url)
      return url
    }

    api.adapters.register({
      name: 'dashboard',
      description: 'Web dashboard (DASHBOARD_HOST:DASHBOARD_PORT, default 127.0.0.1:8646)',
      enabled: () => isEnabled(api.config, api.settings),
      start: async (ctx: AdapterContext) => void (await serve(ctx.services)),
      stop: async () => forgetServer(api.settings.home),
      // HTTP: every gateway instance serves it (no lease).
      everyInstance: true,
    } as GatewayAdapter)
    // Endpoints exist only where the dashboard is served (they are what starts its listener).
    // Endpoints register only during setup, so a process started as `agent dashboard` registers them
    // too (it may serve the dashboard itself; the listener starts only if it does).
    // Not at all where the bind is refused: the http extension would otherwise open the listener
    // on its own at ready, before the adapter's refusal.
    if ((isEnabled(api.config, api.settings) || invokedAsDashboard()) && bindAllowed(api.settings)) warm = registerRoutes(api)

    api.commands.register({
      name: 'dashboard',
      category: 'Info',
      description: 'Open the web dashboard: prints a one-time sign-in link (serves it here if no gateway does)',
      cli: {
        options: { open: { type: 'boolean', default: true, describe: 'Open the browser where there is one (--no-open: only print the link)' } },
        examples: [
          ['agent dashboard', 'Sign in to the dashboard on 127.0.0.1:8646 (DASHBOARD_PORT)'],
          ['DASHBOARD_HOST=0.0.0.0 DASHBOARD_KEY=… agent dashboard', 'Reachable from other machines: needs a key'],
        ],
        run: (ctx: CliContext) => runCommand(api, ctx, serve),
      },
    })
    api.onDispose(() => forgetServer(api.settings.home))
  },
})

async function runCommand(api: ExtensionApi<DashboardConfig>, ctx: CliContext, serve: (services: Services) => Promise<string>): Promise<number> {
  const link = (url: string) => `${url}/auth?token=${mintSignInToken(ctx.settings.home)}`
  const elsewhere = await runningServer(ctx.settings.home)
  if (elsewhere) {
    const url = link(elsewhere)
    ctx.out(`Dashboard (served by the running gateway): ${url}`)
    openBrowser(ctx, url)
    return 0
  }
  assertBindAllowed(ctx.settings)
  await ctx.start('command')
  const url = link(await serve(ctx.services))
  ctx.out(`Dashboard: ${url}`)
  ctx.err('The link signs one browser in and works once, for 10 minutes. Ctrl-C to stop.')
  openBrowser(ctx, url)
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve()
    ctx.signal.addEventListener('abort', () => resolve(), { once: true })
  })
  forgetServer(api.settings.home)
  return 0
}

/** The endpoints, with the handlers (and the sign-in sessions they hold) built on the first request. */
function registerRoutes(api: ExtensionApi<DashboardConfig>): () => Promise<unknown> {
  let handlers: Promise<Map<string, (ctx: HttpContext) => Promise<void>>> | undefined
  const load = () => (handlers ??= import('./pages.ts').then((m) => m.buildHandlers(api)))
  for (const [method, path] of ROUTES) {
    const key = `${method} ${path}`
    api.endpoints.register({ listener: LISTENER, method, path, auth: 'none', crossOrigin: 'self', handler: async (ctx) => (await load()).get(key)!(ctx) })
  }
  return load
}

function invokedAsDashboard(): boolean {
  return process.argv.slice(2).find((arg) => !arg.startsWith('-')) === 'dashboard'
}

function openBrowser(ctx: CliContext, url: string): void {
  if (ctx.argv.open === false || !ctx.isTTY) return
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true })
    child.on('error', () => ctx.err(`Could not open a browser; open the link yourself.`))
    child.unref()
  } catch {
    ctx.err('Could not open a browser; open the link yourself.')
  }
}
