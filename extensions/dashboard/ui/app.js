// The shell: sign-in check, the navigation between pages (by the URL hash, so Back works), the
// theme switch. Pages load as their own modules when first opened.

import { render } from '/vendor/preact.mjs'
import { useEffect, useState } from '/vendor/hooks.mjs'
import { api, html, setCsrf } from '/ui/lib.js'

const PAGES = [
  ['chat', 'Chat'],
  ['sessions', 'Sessions'],
  ['usage', 'Usage'],
  ['gateway', 'Gateway'],
  ['settings', 'Settings'],
]
const pageOf = () => {
  const name = location.hash.replace(/^#\/?/, '').split('/')[0]
  return PAGES.some(([id]) => id === name) ? name : 'chat'
}

const NEXT_THEME = { auto: 'light', light: 'dark', dark: 'auto' }

function useTheme() {
  const [theme, setTheme] = useState(() => localStorage.getItem('theme') || 'auto')
  useEffect(() => {
    document.documentElement.dataset.theme = theme
    localStorage.setItem('theme', theme)
  }, [theme])
  return [theme, setTheme]
}

function SignIn({ onSignedIn }) {
  const [error, setError] = useState('')
  const submit = async (event) => {
    event.preventDefault()
    try {
      const { csrf } = await api('/auth/key', { method: 'POST', body: { key: event.target.key.value } })
      setCsrf(csrf)
      onSignedIn()
    } catch (e) {
      setError(e.message)
    }
  }
  return html`<main class="signin" id="signin">
    <h1>Sign in</h1>
    <p>Open the link that <code>agent dashboard</code> prints. It works once.</p>
    <form onSubmit=${submit}>
      <label>Or the dashboard key (DASHBOARD_KEY) <input name="key" type="password" autocomplete="current-password" /></label>
      <button type="submit">Sign in</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
  </main>`
}

const loaders = {
  chat: () => import('/ui/chat.js'),
  sessions: () => import('/ui/sessions.js'),
  usage: () => import('/ui/usage.js'),
  gateway: () => import('/ui/gateway.js'),
  settings: () => import('/ui/settings.js'),
}

function Page({ name }) {
  const [mod, setMod] = useState(null)
  const [error, setError] = useState('')
  useEffect(() => {
    setMod(null)
    loaders[name]()
      .then((m) => setMod(() => m.default))
      .catch((e) => setError(`This page could not load: ${e.message}`))
  }, [name])
  if (error) return html`<p class="error">${error}</p>`
  return mod ? html`<${mod} />` : html`<p class="loading">Loading…</p>`
}

function App() {
  const [me, setMe] = useState(undefined)
  const [page, setPage] = useState(pageOf)
  const [theme, setTheme] = useTheme()
  const check = () =>
    api('/api/me')
      .then((m) => (setCsrf(m.csrf), setMe(m)))
      .catch(() => setMe(null))
  useEffect(() => {
    check()
    const onHash = () => setPage(pageOf())
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  if (me === undefined) return html`<p class="loading">Loading…</p>`
  if (me === null) return html`<${SignIn} onSignedIn=${check} />`
  return html`<header class="top">
      <strong class="brand">agent</strong>
      <nav aria-label="Pages">
        ${PAGES.map(([id, label]) => html`<a href="#/${id}" id=${`nav-${id}`} aria-current=${page === id ? 'page' : undefined}>${label}</a>`)}
      </nav>
      <button type="button" class="theme" onClick=${() => setTheme((t) => NEXT_THEME[t] ?? 'auto')} title="Theme">Theme: ${theme}</button>
    </header>
    <main id="page"><${Page} name=${page} /></main>`
}

render(html`<${App} />`, document.getElementById('app'))
