// Sessions: the list (source, title, model, tokens, cost, time), full-text search with the
// matches highlighted, and one session's transcript (tool calls folded) with rename, delete,
// export and "continue in Chat".

import { useEffect, useState } from '/vendor/hooks.mjs'
import { api, fmtCost, fmtNum, fmtTime, Highlighted, html, messageText } from '/ui/lib.js'

function Transcript({ id, onChanged }) {
  const [data, setData] = useState(null)
  const [error, setError] = useState('')
  const load = () => api(`/api/sessions/${encodeURIComponent(id)}`).then(setData, (e) => setError(e.message))
  useEffect(() => void load(), [id])
  if (error) return html`<p class="error">${error}</p>`
  if (!data) return html`<p class="loading">Loading…</p>`
  const rename = async (event) => {
    event.preventDefault()
    try {
      await api(`/api/sessions/${encodeURIComponent(id)}`, { method: 'PATCH', body: { title: event.target.title.value } })
      await load()
      onChanged()
    } catch (e) {
      setError(e.message)
    }
  }
  const remove = async () => {
    if (!confirm(`Delete session ${id}?`)) return
    await api(`/api/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' })
    location.hash = '#/sessions'
    onChanged()
  }
  const s = data.session
  return html`<article class="card" aria-label="Transcript">
    <form class="row" onSubmit=${rename}>
      <input name="title" id="session-title" class="grow" aria-label="Title" value=${s.title ?? ''} placeholder="Untitled" />
      <button type="submit">Rename</button>
      <a href=${`#/chat/${encodeURIComponent(id)}`}>Continue in Chat</a>
      <a href=${`/api/sessions/${encodeURIComponent(id)}/export?format=md`} download>Markdown</a>
      <a href=${`/api/sessions/${encodeURIComponent(id)}/export?format=json`} download>JSON</a>
      <button type="button" class="danger" onClick=${remove}>Delete</button>
    </form>
    <p class="muted">${s.source} · ${s.model ?? ''} · ${fmtNum(s.usage.total_tokens)} tokens · ${fmtTime(s.started_at)}</p>
    ${data.messages
      .filter((m) => m.role !== 'system')
      .map((m) =>
        m.role === 'tool'
          ? html`<details class="msg tool"><summary>Output of ${m.name ?? 'tool'}</summary><pre>${messageText(m.content)}</pre></details>`
          : html`<div class=${`msg ${m.role}`}>
              <pre>${messageText(m.content)}</pre>
              ${(m.tool_calls ?? []).map((c) => html`<details class="tool"><summary>Tool call ${c.name}</summary><pre>${c.arguments}</pre></details>`)}
            </div>`,
      )}
  </article>`
}

export default function Sessions() {
  const [list, setList] = useState(null)
  const [hits, setHits] = useState(null)
  const [error, setError] = useState('')
  const selected = decodeURIComponent(location.hash.split('/')[2] ?? '')
  const [, rerender] = useState(0)
  const load = () => api('/api/sessions?limit=100').then((r) => setList(r.data), (e) => setError(e.message))
  useEffect(() => {
    load()
    const onHash = () => rerender((n) => n + 1)
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])
  const search = async (event) => {
    event.preventDefault()
    const q = event.target.q.value.trim()
    if (!q) return setHits(null)
    try {
      setHits((await api(`/api/search?q=${encodeURIComponent(q)}`)).data)
    } catch (e) {
      setError(e.message)
    }
  }
  const link = (id) => `#/sessions/${encodeURIComponent(id)}`
  return html`<section aria-label="Sessions">
    <h1>Sessions</h1>
    <form class="row" role="search" onSubmit=${search}>
      <input name="q" id="session-search" class="grow" type="search" aria-label="Search sessions" placeholder="Search every message (full text)" />
      <button type="submit">Search</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${hits && html`<div id="search-hits" class="card">
      <h2>${hits.length} hit${hits.length === 1 ? '' : 's'}</h2>
      ${hits.map((h) => html`<p><a href=${link(h.session_id)}>${h.title ?? h.session_id}</a> <span class="muted">${h.role} · ${h.source}</span><br /><${Highlighted} text=${h.snippet} /></p>`)}
    </div>`}
    ${selected && html`<${Transcript} id=${selected} onChanged=${load} />`}
    <div class="table-wrap"><table id="sessions-table">
      <thead><tr><th>Title</th><th>Source</th><th class="wide">Model</th><th>Tokens</th><th class="wide">Cost</th><th>Updated</th></tr></thead>
      <tbody>
        ${(list ?? []).map((s) => html`<tr>
          <td><a href=${link(s.id)}>${s.title ?? s.id}</a></td><td>${s.source}</td><td class="wide">${s.model ?? ''}</td>
          <td>${fmtNum(s.usage.total_tokens)}</td><td class="wide">${fmtCost(s.usage.cost_usd)}</td><td>${fmtTime(s.updated_at)}</td>
        </tr>`)}
      </tbody>
    </table></div>
    ${list && list.length === 0 && html`<p class="muted">No sessions yet.</p>`}
  </section>`
}
