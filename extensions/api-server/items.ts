// Ids of the items of a stored response, and finding an item again by its id (`item_reference`, as
// the AI SDK resends earlier assistant turns). An item id carries its response's id: `msg_<hex>_3` is
// output item 3 of `resp_<hex>`, `msg_<hex>_i0` its input item 0, so resolving one costs one store
// read and storing a response no extra index.

import type { ItemResolver } from './messages.ts'
import type { ApiStore } from './store.ts'

const ITEM_ID = /^[a-z]+_([0-9a-f]{8,64})_(i?)(\d{1,6})$/

const PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs', item_reference: 'ref' }

/** The id of output item `index` (or input item, `input: true`) of response `responseId`. */
export function itemId(responseId: string, type: string, index: number, input = false): string {
  return `${PREFIX[type] ?? 'item'}_${responseId.slice(responseId.indexOf('_') + 1)}_${input ? 'i' : ''}${index}`
}

const HAS_STATUS = new Set(['message', 'function_call', 'function_call_output'])

/** Input items as stored and listed: strings become user messages, every item gets an id. */
export function inputItems(responseId: string, input: unknown): unknown[] {
  const list = typeof input === 'string' ? [input] : Array.isArray(input) ? input : []
  return list.map((item, index) => {
    if (typeof item === 'string') return { type: 'message', id: itemId(responseId, 'message', index, true), role: 'user', status: 'completed', content: [{ type: 'input_text', text: item }] }
    const object = item as Record<string, unknown>
    const type = typeof object.type === 'string' ? object.type : 'message'
    const id = typeof object.id === 'string' ? object.id : itemId(responseId, type, index, true)
    // As the API lists them: items that have a status carry one (they all arrived complete).
    const status = HAS_STATUS.has(type) && typeof object.status !== 'string' ? { status: 'completed' } : {}
    if (type === 'message' && typeof object.content === 'string') {
      const part = object.role === 'assistant' ? { type: 'output_text', text: object.content, annotations: [] } : { type: 'input_text', text: object.content }
      return { ...object, type, id, ...status, content: [part] }
    }
    return { ...object, type, id, ...status }
  })
}

/**
 * Finds an item of a stored response by id; undefined when the response or the item is gone. One
 * resolver serves one request: each response is read once however many of its items are referenced.
 */
export function itemResolver(store: ApiStore): ItemResolver {
  const read = new Map<string, unknown[] | undefined>()
  const items = (key: string, load: () => unknown) => {
    if (!read.has(key)) {
      const list = load()
      read.set(key, Array.isArray(list) ? list : undefined)
    }
    return read.get(key)
  }
  return (id) => {
    const match = ITEM_ID.exec(id)
    if (!match) return undefined
    const responseId = `resp_${match[1]}`
    const list = match[2] ? items(`in:${responseId}`, () => store.inputItems(responseId)) : items(`out:${responseId}`, () => store.get(responseId)?.response.output)
    return list?.find((item) => (item as { id?: unknown } | null)?.id === id) as Record<string, unknown> | undefined
  }
}
