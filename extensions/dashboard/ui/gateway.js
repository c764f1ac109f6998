// Gateway: adapter states (reconnecting with the next attempt, failed with the reason), pending
// pairings (approved by the code the user was sent), waiting dangerous commands, cron jobs (run
// now, pause/resume), extensions (reload) and the log tail with a level filter. Live over SSE.

import { useEffect, useState } from '/vendor/hooks.mjs'
import { api, fmtTime, html } from '/ui/lib.js'

const STATE_CLASS = { running: 'ok', starting: 'warn', retrying: 'warn', failed: 'bad', stopped: 'muted' }

function Adapters({ gateway }) {
  return html`<section class="card" aria-label="Adapters"><h2>Adapters</h2>
    <p class="muted">${gateway.where}</p>
    <div class="table-wrap"><table id="adapters">
      <thead><tr><th>Adapter</th><th>State</th><th>Details</th><th class="wide">Dropped / queued / undeliverable</th></tr></thead>
      <tbody>${gateway.adapters.map((a) => html`<tr data-adapter=${a.name}>
        <td>${a.name}</td><td class=${STATE_CLASS[a.state] ?? ''}>${a.state}</td>
        <td>${a.lastError ?? a.last_error ?? ''}${a.state === 'retrying' && (a.nextAttemptAt ?? a.next_attempt_at) ? html` <span class="muted">next attempt ${fmtTime(a.nextAttemptAt ?? a.next_attempt_at)}</span>` : ''}</td>
        <td class="wide">${a.dropped ?? 0} / ${a.queued ?? 0} / ${a.failedDeliveries ?? 0}</td></tr>`)}</tbody>
    </table></div>
  </section>`
}

function Pairing({ pairing, act }) {
  const approve = (event) => {
    event.preventDefault()
    act('/api/pairing/approve', { code: event.target.code.value }).then((ok) => ok && (event.target.code.value = ''))
  }
  return html`<section class="card" aria-label="Pairing"><h2>DM pairing</h2>
    ${pairing.pending.length === 0 ? html`<p class="muted">No pairing requests.</p>` : html`<ul id="pairing-pending">${pairing.pending.map((p) => html`<li>${p.platform}: ${p.userName ?? p.userId} <span class="muted">(asked ${fmtTime(p.createdAt)}, expires ${fmtTime(p.expiresAt)})</span></li>`)}</ul>`}
    <form class="row" onSubmit=${approve}><label>Pairing code the user was sent <input name="code" id="pairing-code" autocomplete="off" /></label><button class="primary" type="submit" id="pairing-approve">Approve</button></form>
    ${pairing.approved.length > 0 && html`<details><summary>${pairing.approved.length} paired users</summary><ul id="pairing-approved">${pairing.approved.map((p) => html`<li>${p.platform}: ${p.userName ?? p.userId} <button class="danger" onClick=${() => act('/api/pairing/revoke', { platform: p.platform, user_id: p.userId })}>Revoke</button></li>`)}</ul></details>`}
  </section>`
}

function Approvals({ approvals, act }) {
  return html`<section class="card" aria-label="Waiting commands"><h2>Waiting commands</h2>
    ${approvals.length === 0 ? html`<p class="muted">Nothing waits for approval.</p>` : approvals.map((a) => html`<div class="msg approval">
      <strong>${a.platform ?? ''}</strong> ${a.tool}: ${a.reasons.join('; ')}<pre>${a.command}</pre>
      <div class="row"><button class="primary" onClick=${() => act(`/api/approvals/${a.id}`, { choice: 'once' })}>Approve once</button><button class="danger" onClick=${() => act(`/api/approvals/${a.id}`, { choice: 'deny' })}>Deny</button></div>
    </div>`)}
  </section>`
}

function Cron({ jobs, error, act }) {
  return html`<section class="card" aria-label="Cron jobs"><h2>Cron jobs</h2>
    ${error && html`<p class="error">${error}</p>`}
    ${jobs.length === 0 ? html`<p class="muted">No cron jobs.</p>` : html`<div class="table-wrap"><table id="cron">
      <thead><tr><th>Job</th><th>Schedule</th><th>Next run</th><th class="wide">Last result</th><th></th></tr></thead>
      <tbody>${jobs.map((j) => html`<tr><td>${j.name} <span class="muted">${j.id}</span></td><td>${j.schedule_display}</td><td>${j.state === 'paused' ? 'paused' : (j.next_run_local ?? '')}</td>
        <td class="wide">${j.last_status ?? ''} ${j.last_error ?? ''}</td>
        <td class="row"><button onClick=${() => act(`/api/cron/${j.id}/run`, {})}>Run now</button>${j.state === 'paused' ? html`<button onClick=${() => act(`/api/cron/${j.id}/resume`, {})}>Resume</button>` : html`<button onClick=${() => act(`/api/cron/${j.id}/pause`, {})}>Pause</button>`}</td></tr>`)}</tbody>
    </table></div>`}
  </section>`
}

function Extensions({ list, act }) {
  return html`<section class="card" aria-label="Extensions"><details><summary><h2 class="inline">Extensions (${list.length}, ${list.filter((e) => e.state === 'failed').length} failed)</h2></summary>
    <div class="table-wrap"><table id="extensions"><thead><tr><th>Name</th><th>State</th><th class="wide">Reason</th><th></th></tr></thead>
      <tbody>${list.map((e) => html`<tr><td>${e.name} <span class="muted">${e.version}</span></td><td class=${e.state === 'failed' ? 'bad' : ''}>${e.state}</td><td class="wide">${e.reason ?? ''}</td>
        <td>${e.name !== 'dashboard' && html`<button onClick=${() => act(`/api/extensions/${e.name}/reload`, {})}>Reload</button>`}</td></tr>`)}</tbody></table></div>
  </details></section>`
}

function Logs() {
  const [level, setLevel] = useState('info')
  const [lines, setLines] = useState([])
  useEffect(() => {
    const load = () => api(`/api/logs?level=${level}`).then((r) => setLines(r.lines), () => {})
    load()
    const timer = setInterval(load, 3000)
    return () => clearInterval(timer)
  }, [level])
  return html`<section class="card" aria-label="Log"><div class="row"><h2 class="grow">Log</h2>
    <label>Level <select value=${level} onChange=${(e) => setLevel(e.target.value)}>${['debug', 'info', 'warn', 'error'].map((l) => html`<option value=${l}>${l}</option>`)}</select></label></div>
    <pre class="log" id="log">${lines.length ? lines.join('\n') : 'No log lines (the gateway log file is written when it runs as a service).'}</pre>
  </section>`
}

export default function Gateway() {
  const [snap, setSnap] = useState(null)
  const [message, setMessage] = useState('')
  const refresh = () => api('/api/gateway').then(setSnap)
  useEffect(() => {
    refresh()
    const events = new EventSource('/api/events')
    events.addEventListener('gateway', (e) => setSnap(JSON.parse(e.data)))
    return () => events.close()
  }, [])
  const act = async (path, body) => {
    try {
      await api(path, { method: 'POST', body })
      setMessage('Done.')
      await refresh()
      return true
    } catch (e) {
      setMessage(e.message)
      return false
    }
  }
  if (!snap) return html`<p class="loading">Loading…</p>`
  return html`<h1>Gateway</h1>
    ${message && html`<p role="status" id="gateway-message">${message}</p>`}
    <${Adapters} gateway=${snap.gateway} />
    <${Pairing} pairing=${snap.pairing} act=${act} />
    <${Approvals} approvals=${snap.approvals} act=${act} />
    <${Cron} jobs=${snap.cron} error=${snap.cron_error} act=${act} />
    <${Extensions} list=${snap.extensions} act=${act} />
    <${Logs} />`
}
