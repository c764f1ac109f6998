// Chat: a conversation that streams; tool calls shown as they run (name, arguments, output,
// duration); approvals waiting for this page with approve/deny; any stored session continued
// (#/chat/<session id>).

import { useEffect, useRef, useState } from '/vendor/hooks.mjs'
import { api, html, messageText, streamEvents } from '/ui/lib.js'

const sessionFromHash = () => decodeURIComponent(location.hash.split('/')[2] ?? '')

function historyItems(messages) {
  const items = []
  const calls = new Map()
  for (const m of messages) {
    if (m.role === 'user') items.push({ kind: 'user', text: messageText(m.content) })
    else if (m.role === 'assistant') {
      const text = messageText(m.content)
      if (text) items.push({ kind: 'assistant', text })
      for (const c of m.tool_calls ?? []) {
        const item = { kind: 'tool', id: c.id, name: c.name, input: c.arguments, done: true }
        calls.set(c.id, item)
        items.push(item)
      }
    } else if (m.role === 'tool' && calls.has(m.tool_call_id)) calls.get(m.tool_call_id).output = messageText(m.content)
  }
  return items
}

function Tool({ item }) {
  const args = typeof item.input === 'string' ? item.input : JSON.stringify(item.input, null, 2)
  return html`<details class="msg tool" open=${!item.done}>
    <summary><strong>${item.name}</strong> ${item.done ? (item.ok === false ? html`<span class="bad">failed</span>` : html`<span class="ok">done</span>`) : html`<span class="warn">running…</span>`} ${item.duration_ms != null ? html`<span class="muted">${item.duration_ms} ms</span>` : ''}</summary>
    <div class="muted">Arguments</div><pre>${args}</pre>
    ${item.output != null && html`<div class="muted">Output</div><pre class="tool-output">${item.output}</pre>`}
  </details>`
}

function Approval({ item, onAnswer }) {
  return html`<div class="msg approval" role="group" aria-label="Approval needed">
    <strong>Approval needed</strong> for <code>${item.tool}</code>: ${item.reasons.join('; ')}
    <pre>${item.command}</pre>
    ${item.answer
      ? html`<p class="muted">Answered: ${item.answer}</p>`
      : html`<div class="row">
          <button class="primary" id=${`approve-${item.id}`} onClick=${() => onAnswer(item, 'once')}>Approve once</button>
          <button onClick=${() => onAnswer(item, 'session')}>Approve for session</button>
          <button class="danger" id=${`deny-${item.id}`} onClick=${() => onAnswer(item, 'deny')}>Deny</button>
        </div>`}
  </div>`
}

export default function Chat() {
  const [sessionId, setSessionId] = useState(sessionFromHash)
  const [items, setItems] = useState([])
  // The conversation is built in place as events arrive; each update renders a copy of it.
  const log = useRef([])
  const show = (list) => ((log.current = list), setItems([...list]))
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const input = useRef(null)
  const end = useRef(null)
  const update = () => setItems([...log.current])

  useEffect(() => {
    if (!sessionId) return
    api(`/api/sessions/${encodeURIComponent(sessionId)}`)
      .then((s) => show(historyItems(s.messages)))
      .catch((e) => setError(e.message))
  }, [])
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [items])

  const answer = async (item, choice) => {
    try {
      await api(`/api/approvals/${encodeURIComponent(item.id)}`, { method: 'POST', body: { choice } })
      item.answer = choice === 'deny' ? 'denied' : `approved (${choice})`
    } catch (e) {
      item.answer = `not answered: ${e.message}`
    }
    update()
  }

  const send = async (event) => {
    event.preventDefault()
    const message = input.current.value.trim()
    if (!message || busy) return
    input.current.value = ''
    setError('')
    setBusy(true)
    const list = log.current
    list.push({ kind: 'user', text: message })
    let reply = null
    const tools = new Map()
    update()
    try {
      await streamEvents('/api/chat', { message, session_id: sessionId || undefined }, (name, data) => {
        if (name === 'session') {
          setSessionId(data.session_id)
          history.replaceState(null, '', `#/chat/${encodeURIComponent(data.session_id)}`)
        } else if (name === 'delta') {
          if (!reply) list.push((reply = { kind: 'assistant', text: '' }))
          reply.text += data.text
        } else if (name === 'tool.start') {
          reply = null
          const item = { kind: 'tool', id: data.call_id, name: data.name, input: data.input, done: false }
          tools.set(data.call_id, item)
          list.push(item)
        } else if (name === 'tool.end') {
          Object.assign(tools.get(data.call_id) ?? {}, { done: true, ok: data.ok, output: data.output, duration_ms: data.duration_ms })
        } else if (name === 'approval') list.push({ kind: 'approval', ...data })
        else if (name === 'done' && !reply && data.answer) list.push({ kind: 'assistant', text: data.answer })
        else if (name === 'error') setError(data.message)
        update()
      })
    } catch (e) {
      setError(e.message)
    } finally {
      setBusy(false)
      input.current?.focus()
    }
  }

  const onKey = (event) => {
    if (event.key === 'Enter' && !event.shiftKey) send(event)
  }

  return html`<section aria-label="Chat">
    <div class="row"><h1 class="grow">Chat</h1>${sessionId && html`<span class="muted" id="chat-session">${sessionId}</span>`}
      <button type="button" onClick=${() => ((location.hash = '#/chat'), setSessionId(''), show([]))}>New chat</button></div>
    <div id="messages" aria-live="polite">
      ${items.map((item) =>
        item.kind === 'tool'
          ? html`<${Tool} item=${item} />`
          : item.kind === 'approval'
            ? html`<${Approval} item=${item} onAnswer=${answer} />`
            : html`<div class=${`msg ${item.kind}`}><pre>${item.text}</pre></div>`,
      )}
      <div ref=${end}></div>
    </div>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    <form class="chat-form" onSubmit=${send}>
      <textarea id="chat-input" ref=${input} aria-label="Message" placeholder="Message the agent (Enter sends, Shift+Enter for a new line)" onKeyDown=${onKey}></textarea>
      <button type="submit" class="primary" id="chat-send" disabled=${busy}>${busy ? 'Working…' : 'Send'}</button>
    </form>
  </section>`
}
