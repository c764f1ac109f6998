// Usage: the numbers of `agent insights --json` over a chosen window, plotted with uPlot (loaded
// only here): tokens, sessions, cost and API calls per day, tokens by model, sessions by platform,
// calls by tool, session lengths.

import { useEffect, useRef, useState } from '/vendor/hooks.mjs'
import { api, fmtCost, fmtNum, html } from '/ui/lib.js'

let uPlotLoading
const loadUPlot = () => {
  if (!uPlotLoading) {
    const css = document.createElement('link')
    css.rel = 'stylesheet'
    css.href = '/vendor/uplot.css'
    document.head.append(css)
    uPlotLoading = import('/vendor/uplot.mjs').then((m) => m.default)
  }
  return uPlotLoading
}

const color = () => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() || '#2457c5'

/** One chart: x values (numbers) and one series; `bars` for categories. */
function Chart({ id, title, xs, ys, labels, bars, window: span }) {
  const box = useRef(null)
  useEffect(() => {
    let plot
    let gone = false
    loadUPlot().then((uPlot) => {
      if (gone || !box.current) return
      const width = Math.max(260, box.current.clientWidth)
      const series = { label: title, stroke: color(), fill: bars ? color() : undefined, width: 2, points: { show: true, size: 6 } }
      if (bars) series.paths = uPlot.paths.bars({ size: [0.6, 60] })
      plot = new uPlot(
        {
          width,
          height: 220,
          // Per-day charts span the chosen window, so one day does not fill the whole width.
          scales: { x: span ? { time: true, range: () => span } : { time: false } },
          axes: [labels ? { values: (u, splits) => splits.map((v) => labels[v] ?? '') } : {}, {}],
          series: [{}, series],
        },
        [xs, ys],
        box.current,
      )
      box.current.dataset.points = String(xs.length)
    })
    return () => {
      gone = true
      plot?.destroy()
    }
  }, [JSON.stringify([xs, ys, span])])
  return html`<figure class="card"><figcaption>${title}</figcaption><div id=${id} class="chart" ref=${box}></div>
    ${xs.length === 0 && html`<p class="muted">No data in this window.</p>`}</figure>`
}

const categories = (pairs) => ({ xs: pairs.map((_, i) => i), ys: pairs.map(([, v]) => v), labels: pairs.map(([k]) => k) })

export default function Usage() {
  const [days, setDays] = useState(30)
  const [data, setData] = useState(null)
  const [error, setError] = useState('')
  useEffect(() => {
    api(`/api/usage?days=${days}`).then(setData, (e) => setError(e.message))
  }, [days])
  if (error) return html`<p class="error">${error}</p>`
  if (!data) return html`<p class="loading">Loading…</p>`
  const dayXs = data.daily.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000)
  const today = Math.floor(Date.now() / 86_400_000) * 86_400
  const span = [today - (days - 1) * 86_400, today + 86_400]
  const models = categories(data.models.map((m) => [m.model, m.tokens]))
  const sources = categories(Object.entries(data.by_source))
  const tools = categories(data.tools.map((t) => [t.tool, t.calls]))
  const lengths = categories((data.session_lengths ?? []).map((b) => [b.messages, b.sessions]))
  return html`<h1>Usage</h1>
    <div class="row"><label>Window <select id="usage-days" value=${days} onChange=${(e) => setDays(Number(e.target.value))}>${[1, 7, 30, 90, 365].map((d) => html`<option value=${d}>${d} days</option>`)}</select></label></div>
    <p id="usage-totals">${fmtNum(data.sessions)} sessions · ${fmtNum(data.messages)} messages · ${fmtNum(data.api_calls)} API calls · ${fmtNum(data.tokens.total)} tokens · cost ${data.cost_usd == null ? 'unknown' : fmtCost(data.cost_usd)}</p>
    <div class="charts">
      <${Chart} id="chart-daily-tokens" title="Tokens per day" window=${span} xs=${dayXs} ys=${data.daily.map((d) => d.tokens)} />
      <${Chart} id="chart-daily-sessions" title="Sessions per day" window=${span} xs=${dayXs} ys=${data.daily.map((d) => d.sessions)} />
      <${Chart} id="chart-daily-cost" title="Cost per day (USD, known prices)" window=${span} xs=${dayXs} ys=${data.daily.map((d) => d.cost_usd ?? null)} />
      <${Chart} id="chart-daily-calls" title="API calls per day" window=${span} xs=${dayXs} ys=${data.daily.map((d) => d.api_calls ?? 0)} />
      <${Chart} id="chart-models" title="Tokens by model" bars=${true} ...${models} />
      <${Chart} id="chart-sources" title="Sessions by platform" bars=${true} ...${sources} />
      <${Chart} id="chart-tools" title="Calls by tool" bars=${true} ...${tools} />
      <${Chart} id="chart-lengths" title="Session length (messages)" bars=${true} ...${lengths} />
    </div>`
}
