// A listener's routing table over the live endpoint registry: the router (for paths with params and
// for the 404/405/501 the router decides) and the map of fixed paths that only their own endpoint
// matches, which both the Koa chain and the fast path dispatch from directly (the router composes
// the matched layers anew on every request). Rebuilt when the registry changes, not per request.

import type { EndpointDefinition } from 'agent/sdk'

export interface Routing {
  router: any
  routes: any
  allowedMethods: any
  /** `METHOD /path` → the one endpoint a fixed path reaches. */
  exact: Map<string, EndpointDefinition>
  /** `METHOD /path` → endpoint, every endpoint of the listener (the origin gate looks its matches up). */
  byKey: Map<string, EndpointDefinition>
}

export function endpointKey(e: { method: string; path: string }): string {
  return `${e.method} ${e.path}`
}

export function buildRouting(Router: any, endpoints: readonly EndpointDefinition[], serve: (endpoint: EndpointDefinition, ctx: any, next: any) => Promise<void>): Routing {
  const router: any = new Router()
  const byKey = new Map<string, EndpointDefinition>()
  for (const endpoint of endpoints) {
    const key = endpointKey(endpoint)
    byKey.set(key, endpoint)
    router.register(endpoint.path, [endpoint.method], (ctx: any, next: any) => serve(endpoint, ctx, next), { name: key })
  }
  const exact = new Map<string, EndpointDefinition>()
  for (const endpoint of byKey.values()) {
    if (endpoint.path.includes(':') || endpoint.path.includes('*') || endpoint.path.includes('(')) continue
    const matched = router.match(endpoint.path, endpoint.method).pathAndMethod as Array<{ name?: string }>
    if (matched.length === 1 && matched[0]!.name === endpointKey(endpoint)) exact.set(endpointKey(endpoint), endpoint)
  }
  // routes() and allowedMethods() build a new function on every call: once per table, not per request.
  return { router, routes: router.routes(), allowedMethods: router.allowedMethods({ throw: false }), exact, byKey }
}

/** The fixed-path endpoint a raw request line reaches, if any (the query string is not part of the path). */
export function exactEndpoint(routing: Routing, method: string | undefined, url: string | undefined): EndpointDefinition | undefined {
  if (!url || routing.exact.size === 0) return undefined
  const query = url.indexOf('?')
  return routing.exact.get(`${method} ${query < 0 ? url : url.slice(0, query)}`)
}
