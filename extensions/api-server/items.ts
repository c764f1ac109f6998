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
 * Finds an item of a stored response by id; undefined when the response or the item is gone. The
 * responses that `input`'s `item_reference` items name are read first (each once, however many of
 * its items are referenced), so the parse that follows resolves them without waiting.
 */
export async function itemResolver(store: ApiStore, input: unknown): Promise<ItemResolver> {
  const lists = new Map<string, Promise<unknown[] | undefined>>()
  const keyOf = (id: string) => {
    const match = ITEM_ID.exec(id)
    return match ? { key: `${match[2] ? 'in' : 'out'}:resp_${match[1]}`, responseId: `resp_${match[1]}`, input: match[2] === 'i' } : undefined
  }
  for (const item of Array.isArray(input) ? input : []) {
    const id = (item as { type?: unknown; id?: unknown } | null)?.type === 'item_reference' ? (item as { id?: unknown }).id : undefined
    const found = typeof id === 'string' ? keyOf(id) : undefined
    if (!found || lists.has(found.key)) continue
    const load = found.input ? store.inputItems(found.responseId) : store.get(found.responseId).then((r) => r?.response.output)
    lists.set(found.key, load.then((list) => (Array.isArray(list) ? list : undefined)))
  }
  const read = new Map<string, unknown[] | undefined>()
  for (const [key, list] of lists) read.set(key, await list)
  return (id) => {
    const list = read.get(keyOf(id)?.key ?? '')
    return list?.find((item) => (item as { id?: unknown } | null)?.id === id) as Record<string, unknown> | undefined
  }
}
