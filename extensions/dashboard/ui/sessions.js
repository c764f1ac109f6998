import { html } from '/ui/lib.js'

export default function Page() {
  return html`<h1>sessions</h1><p class="muted">Coming next.</p>`
}
