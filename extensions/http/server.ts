// One Koa app per listener. Koa middleware cannot be removed, so the app holds a single dispatcher
// that reads the live endpoint registry (router rebuilt when the registry changes): endpoints come
// and go with hot reload while the socket stays up. Order: error envelope → draining (503) →
// origin gate (403) → CORS → route → auth (401, or the keyless gates: 503 off loopback, 421 for a
// foreign Host) → handler. A request for a fixed path of one endpoint takes the same steps as
// direct calls (the fast path, below); the rest go through Koa's chain and the router. The socket
// layer bounds slow and numerous clients (client-errors.ts).

import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentError, bearerToken, hostHeaderName, HttpError, isLoopbackHost, safeEqual, type EndpointDefinition, type HttpContext, type Logger, type RegistryHandle } from 'agent/sdk'
import { answerClientError, answerConnect } from './client-errors.ts'
import { answerError, errorEnvelope, sendError } from './errors.ts'
import type { ListenerConfig } from './listeners.ts'
import { buildRouting, exactEndpoint, type Routing } from './routing.ts'

export interface RunningListener {
  config: ListenerConfig
  address(): { host: string; port: number; url: string }
  close(graceMs?: number): Promise<void>
}

const ROUTE = Symbol('route')

/** Wraps every request (outermost: it sees the final status); `route` is the matched endpoint's path. */
export type RequestInstrument = (ctx: HttpContext, next: () => Promise<void>, route: () => string | undefined) => Promise<void>

export async function startListener(
  config: ListenerConfig,
  endpoints: RegistryHandle<EndpointDefinition>,
  log: Logger,
  secrets: () => Iterable<string | undefined>,
  instrument?: RequestInstrument,
): Promise<RunningListener> {
  const mine = () => endpoints.list().filter((e) => e.listener === config.name)
  const loopbackBind = isLoopbackHost(config.host)
  const unguarded = () => !config.key && !loopbackBind && mine().some((e) => e.auth === 'api-key')
  const refusal = () => `refusing to serve the "${config.name}" listener on ${config.host}:${config.port} without ${config.keyName}: set the key, or bind to 127.0.0.1`
  if (unguarded()) throw new Error(refusal())
  const [{ default: Koa }, { default: Router }, { default: cors }, http] = await Promise.all([import('koa'), import('@koa/router'), import('@koa/cors'), import('node:http')])

  let routing: Routing | undefined
  const unsubscribe = endpoints.subscribe(() => {
    routing = undefined
    if (unguarded()) log.error(`${refusal()} (answering 503)`)
  })
  const currentRouting = () => (routing ??= buildRouting(Router, mine(), guarded))

  const originAllowed = (origin: string) => config.corsOrigins === '*' || config.corsOrigins.includes(origin.replace(/\/$/, ''))
  // One CORS layer (@koa/cors), used by the Koa chain and called directly by the fast path.
  const corsLayer = cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin')
      return origin && originAllowed(origin) ? origin : ''
    },
    // No fixed list: a preflight is answered with the headers it asks for. Only origins the
    // listener allows get here (the gate before it refused the rest), and what browser clients send
    // varies and grows (openai-node's x-stainless-*, openai-*, the AI SDK's own, idempotency-key),
    // so a list would break the next client version while guarding nothing the origin check does
    // not already guard. Header names a browser may send are tokens; Node refuses to echo anything
    // else, so a hand-made preflight cannot inject into the answer.
    exposeHeaders: ['Retry-After', 'X-Request-Id', 'X-Agent-Session-Id', 'Idempotent-Replayed'],
    maxAge: 600,
  })

  async function guarded(endpoint: EndpointDefinition, ctx: HttpContext, next: () => Promise<unknown>): Promise<void> {
    ;(ctx.state as Record<symbol, string>)[ROUTE] = endpoint.path
    if (endpoint.auth === 'api-key' && config.key) {
      const token = bearerToken(ctx)
      if (!token || !safeEqual(token, config.key)) {
        throw new HttpError(401, 'Invalid API key', { type: 'invalid_request_error', code: 'invalid_api_key', headers: { 'WWW-Authenticate': 'Bearer' } })
      }
    } else if (endpoint.auth === 'api-key') keyless(ctx)
    await endpoint.handler(ctx, next as never)
  }

  // Without a key, an endpoint that needs one is served only on loopback — checked per request, so
  // an endpoint hot-loaded after listen is held to it too — and only to a loopback Host: a page on
  // a name rebound to 127.0.0.1 sends its own name (DNS rebinding).
  function keyless(ctx: HttpContext): void {
    if (!loopbackBind) {
      throw new HttpError(503, `This endpoint needs ${config.keyName} when the "${config.name}" listener is not bound to loopback`, { type: 'server_error', code: 'api_key_required' })
    }
    const host = hostHeaderName(ctx.get('host'))
    if (!host || !isLoopbackHost(host)) {
      throw new HttpError(421, 'Without an API key this server answers only requests addressed to localhost or a loopback address', { code: 'misdirected_request' })
    }
  }

  let draining = false
  /** The gates every request passes; false when it answered the request itself. */
  function admitted(ctx: HttpContext): boolean {
    // Every answer is data for programs, never a page to render or frame.
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.set('X-Frame-Options', 'DENY')
    ctx.set('Referrer-Policy', 'no-referrer')
    if (!ctx.get('host') && ctx.req.httpVersion !== '1.0') {
      ctx.set('Connection', 'close')
      sendError(ctx, secrets, 400, 'HTTP/1.1 requests must carry a Host header', 'invalid_request_error', 'missing_host')
      return false
    }
    if (draining) {
      ctx.set('Connection', 'close')
      sendError(ctx, secrets, 503, 'The server is shutting down', 'server_error', 'shutting_down')
      return false
    }
    // Origin gate: a browser request from an origin the listener does not allow is refused, unless
    // the endpoint it is for decides origins itself.
    const origin = ctx.get('Origin')
    if (origin && !originAllowed(origin)) {
      const { router, byKey } = currentRouting()
      const match = router.match(ctx.path, ctx.method === 'OPTIONS' ? ctx.get('Access-Control-Request-Method') || 'GET' : ctx.method)
      const selfDecides = match.path.some((layer: { name?: string }) => byKey.get(layer.name ?? '')?.crossOrigin === 'self')
      if (!selfDecides) {
        sendError(ctx, secrets, 403, `Origin ${origin} is not allowed`, 'invalid_request_error', 'origin_not_allowed')
        return false
      }
    }
    return true
  }

  // Every status the router decides itself gets the envelope too (405 keeps its Allow header); so
  // does a handler that set no body (Koa's default 404).
  function envelopeBare(ctx: HttpContext): void {
    if (ctx.body !== undefined && ctx.body !== null) return
    if (ctx.status === 404) sendError(ctx, secrets, 404, `No route for ${ctx.method} ${ctx.path}`, 'invalid_request_error', 'not_found')
    else if (ctx.status === 405) sendError(ctx, secrets, 405, `Method ${ctx.method} is not allowed on ${ctx.path}`, 'invalid_request_error', 'method_not_allowed')
    else if (ctx.status === 501) {
      if (!ctx.response.get('Allow')) ctx.remove('Allow')
      sendError(ctx, secrets, 501, `Method ${ctx.method} is not implemented by this server`, 'invalid_request_error', 'method_not_implemented')
    }
  }

  const routeOf = (ctx: HttpContext) => () => (ctx.state as Record<symbol, string>)[ROUTE]
  const app = new Koa({ proxy: false })
  app.silent = true
  // The Koa chain, for every request the fast path does not take. Order: instrument (outermost: it
  // sees the final status) → error envelope → gates → CORS → route.
  if (instrument) app.use((ctx, next) => instrument(ctx as never, next, routeOf(ctx as never)))
  app.use(errorEnvelope(log, secrets) as never)
  app.use(async (ctx, next) => {
    if (admitted(ctx as never)) await next()
  })
  app.use(corsLayer)
  app.use(async (ctx, next) => {
    const { routes, allowedMethods, exact } = currentRouting()
    const direct = exact.get(`${ctx.method} ${ctx.path}`)
    if (direct) {
      ;(ctx as unknown as { params: Record<string, string> }).params = {}
      await guarded(direct, ctx as never, next)
    } else {
      await routes(ctx as never, async () => {
        await allowedMethods(ctx as never, next)
      })
    }
    envelopeBare(ctx as never)
  })

  // The fast path: a request for a fixed path of one endpoint (the chat and responses POSTs) runs
  // the same steps, in the same order, as direct calls instead of through koa-compose, the router
  // and a middleware layer each (Koa's context and its way of answering are kept).
  const noNext = async () => undefined
  const fast = (endpoint: EndpointDefinition) => async (ctx: HttpContext) => {
    const steps = async () => {
      try {
        if (!admitted(ctx)) return
        await corsLayer(ctx as never, async () => {
          ;(ctx as unknown as { params: Record<string, string> }).params = {}
          await guarded(endpoint, ctx, noNext)
          envelopeBare(ctx)
        })
      } catch (error) {
        answerError(ctx, error, log, secrets)
      }
    }
    if (instrument) await instrument(ctx, steps, routeOf(ctx))
    else await steps()
  }
  const fastByEndpoint = new WeakMap<EndpointDefinition, (ctx: HttpContext) => Promise<void>>()
  const slow = app.callback()
  const koa = app as unknown as { createContext(req: unknown, res: unknown): HttpContext; handleRequest(ctx: HttpContext, fn: (ctx: HttpContext) => Promise<void>): Promise<void> }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const endpoint = exactEndpoint(currentRouting(), req.method, req.url)
    if (!endpoint) return slow(req, res)
    let run = fastByEndpoint.get(endpoint)
    if (!run) fastByEndpoint.set(endpoint, (run = fast(endpoint)))
    return koa.handleRequest(koa.createContext(req, res), run)
  }

  const { headersTimeoutMs, requestTimeoutMs, maxConnections } = config.limits
  const server: Server = http.createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // Node enforces both timeouts only when it sweeps its connections: sweep often enough for them.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
      // Checked below instead, so the refusal carries the envelope like every other status.
      requireHostHeader: false,
    },
    handle,
  )
  server.keepAliveTimeout = 65_000
  // Beyond the cap Node closes new sockets at once; say so at most once a minute.
  server.maxConnections = maxConnections
  let lastDropLog = 0
  server.on('drop', () => {
    if (Date.now() - lastDropLog < 60_000) return
    lastDropLog = Date.now()
    log.warn(`listener "${config.name}": ${maxConnections} connections open, refusing more (max_connections)`)
  })
  server.on('clientError', answerClientError)
  server.on('connect', answerConnect)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, () => {
      server.off('error', reject)
      resolve()
    })
  }).catch((error: NodeJS.ErrnoException) => {
    unsubscribe()
    if (error.code === 'EADDRINUSE') {
      throw new AgentError('E_PORT_IN_USE', `port ${config.port} on ${config.host} is in use, so the "${config.name}" listener cannot start (${config.portSetting} changes it)`, { cause: error })
    }
    throw new AgentError('E_LISTEN', `cannot listen on ${config.host}:${config.port} for "${config.name}": ${error.message}`, { cause: error })
  })
  const address = () => {
    const a = server.address() as AddressInfo
    const host = config.host.includes(':') ? `[${config.host}]` : config.host
    return { host: config.host, port: a.port, url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${a.port}` }
  }
  log.info(`listener "${config.name}" on ${address().url}`)

  return {
    config,
    address,
    async close(graceMs = 5_000) {
      draining = true
      unsubscribe()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      const timer = setTimeout(() => server.closeAllConnections(), graceMs)
      timer.unref()
      await closed
      clearTimeout(timer)
    },
  }
}
