// Settings: the configuration in effect (secrets masked, where each value comes from), each value
// editable through the same checks as `agent config set` (comments in config.yaml kept).

import { useEffect, useState } from '/vendor/hooks.mjs'
import { api, html } from '/ui/lib.js'

const asText = (value) => (typeof value === 'string' ? value : JSON.stringify(value))

export default function Settings() {
  const [data, setData] = useState(null)
  const [filter, setFilter] = useState('')
  const [message, setMessage] = useState(null)
  const load = () => api('/api/settings').then(setData, (e) => setMessage({ error: e.message }))
  useEffect(() => void load(), [])
  const save = async (event) => {
    event.preventDefault()
    const key = event.target.key.value.trim()
    const value = event.target.value.value
    try {
      const saved = await api('/api/settings', { method: 'PUT', body: { key, value } })
      setMessage({ ok: `Saved ${saved.key} = ${asText(saved.value)}` })
      await load()
    } catch (e) {
      setMessage({ error: e.message })
    }
  }
  const edit = (entry) => {
    const form = document.getElementById('setting-form')
    form.key.value = entry.key
    form.value.value = asText(entry.value)
    form.value.focus()
  }
  if (!data) return html`<p class="loading">Loading…</p>`
  const shown = data.settings.filter((e) => !filter || e.key.includes(filter))
  return html`<h1>Settings</h1>
    <p class="muted">${data.config_path}</p>
    <form class="card row" id="setting-form" onSubmit=${save}>
      <label class="grow">Key <input name="key" id="setting-key" placeholder="display.skin" /></label>
      <label class="grow">Value <input name="value" id="setting-value" /></label>
      <button class="primary" type="submit" id="setting-save">Save</button>
    </form>
    ${message && html`<p role="status" id="setting-message" class=${message.error ? 'error' : 'ok'}>${message.error ?? message.ok}</p>`}
    <input type="search" aria-label="Filter settings" placeholder="Filter" value=${filter} onInput=${(e) => setFilter(e.target.value)} />
    <div class="table-wrap"><table id="settings-table"><thead><tr><th>Key</th><th>Value</th><th class="wide">From</th><th></th></tr></thead>
      <tbody>${shown.map((e) => html`<tr><td><code>${e.key}</code></td><td><code>${asText(e.value)}</code></td><td class="wide">${e.source}</td><td><button onClick=${() => edit(e)} aria-label=${`Edit ${e.key}`}>Edit</button></td></tr>`)}</tbody>
    </table></div>`
}
