// The web tools' backends as other extensions see them (`services.get<WebService>('web')`, extension
// `tools-web`): which backend `web_search`/`web_extract` use now, and each backend's keys, for
// `agent doctor`, `agent tools` and setup.

export const WEB_SERVICE = 'web'

export interface WebBackendStatus {
  name: string
  label: string
  /** Environment variables it reads (key first, then optional base URL). */
  envKeys: string[]
  /** true, or why it is not usable now. */
  configured: true | string
  /** Whether `web_crawl` works on it. */
  crawl: boolean
}

export interface WebService {
  /** The backend in use: `web.backend`, else the first whose key is present; undefined when none. */
  current(): string | undefined
  backends(): WebBackendStatus[]
}
