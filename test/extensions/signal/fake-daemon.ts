// A loopback fake of `signal-cli daemon --http`, written from signal-cli's JSON-RPC manual page:
// GET /api/v1/check (200, or a chosen status), GET /api/v1/events (server-sent events, each with an
// id; the last 1000 kept and replayed after a Last-Event-ID; `receive` events carrying
// {envelope, account}), and POST /api/v1/rpc (JSON-RPC 2.0: send → {timestamp}, sendTyping,
// getAttachment → {data: base64}). A send to the account's own number comes back as a Note-to-Self
// sync message, as the real daemon delivers it. Tests push envelopes, drop or silence the stream
// and read what was sent.

import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export const ACCOUNT = '+15550000001'
export const ACCOUNT_UUID = '0a0a0a0a-1111-4111-8111-000000000001'
export const ALICE = '+15550001111'
export const ALICE_UUID = 'aaaaaaaa-1111-4111-8111-aaaaaaaaaaaa'
export const BOB = '+15550002222'
export const MALLORY = '+15550009999'
export const TEAM = 'Pmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='
export const OTHER_GROUP = 'Zmpi+EfPWmsxiomLe9Nx2XF9HOE483p6iKiFj65iMwI='

export interface RpcCall {
  method: string
  params: Record<string, any>
}

export interface FakeDaemon {
  url: string
  /** Every JSON-RPC call, in order. */
  calls: RpcCall[]
  /** How many times /api/v1/events was opened, and the Last-Event-ID of each opening. */
  connections: Array<{ lastEventId?: string; account?: string }>
  checks: number
  /** The status /api/v1/check answers (default 200). */
  checkStatus: number
  /** Attachment bodies by id. */
  attachments: Map<string, Buffer>
  /** Writes one envelope to every open event stream (and keeps it for replay); returns its event id. */
  push(envelope: Record<string, any>): number
  /** Ends every open event stream (the connection closes). */
  dropStreams(): void
  openStreams(): number
  sends(): RpcCall[]
  close(): Promise<void>
}

let clock = Date.now()
/** A unique, increasing Signal timestamp (ms). */
export const nextTimestamp = () => ++clock

export function dm(from: string, text: string, extra: Record<string, any> = {}): Record<string, any> {
  const timestamp = nextTimestamp()
  return { source: from, sourceNumber: from, sourceUuid: from === ALICE ? ALICE_UUID : undefined, sourceName: from === ALICE ? 'Alice' : 'Someone', sourceDevice: 1, timestamp, dataMessage: { timestamp, message: text, expiresInSeconds: 0, viewOnce: false, mentions: [], attachments: [], ...extra } }
}

export function inGroup(from: string, groupId: string, text: string, extra: Record<string, any> = {}): Record<string, any> {
  return dm(from, text, { groupInfo: { groupId, groupName: 'Team', type: 'DELIVER' }, ...extra })
}

/** A sync of a message the owner sent from another device: to themselves (Note to Self) or into a group. */
export function ownSent(text: string, options: { groupId?: string; to?: string; timestamp?: number } = {}): Record<string, any> {
  const timestamp = options.timestamp ?? nextTimestamp()
  const to = options.groupId ? {} : { destination: options.to ?? ACCOUNT, destinationNumber: options.to ?? ACCOUNT }
  return {
    source: ACCOUNT, sourceNumber: ACCOUNT, sourceUuid: ACCOUNT_UUID, sourceName: 'Owner', sourceDevice: 2, timestamp,
    syncMessage: { sentMessage: { ...to, timestamp, message: text, expiresInSeconds: 0, viewOnce: false, ...(options.groupId ? { groupInfo: { groupId: options.groupId, type: 'DELIVER' } } : {}) } },
  }
}

export async function startFakeDaemon(options: { account?: string } = {}): Promise<FakeDaemon> {
  const account = options.account ?? ACCOUNT
  const streams = new Set<ServerResponse>()
  const kept: Array<{ id: number; data: string }> = []
  let nextId = 1
  const write = (res: ServerResponse, event: { id: number; data: string }) => res.write(`id: ${event.id}\nevent: receive\ndata: ${event.data}\n\n`)

  const fake: FakeDaemon = {
    url: '',
    calls: [],
    connections: [],
    checks: 0,
    checkStatus: 200,
    attachments: new Map(),
    push(envelope) {
      const event = { id: nextId++, data: JSON.stringify({ envelope, account }) }
      kept.push(event)
      if (kept.length > 1000) kept.shift()
      for (const res of streams) write(res, event)
      return event.id
    },
    dropStreams() {
      for (const res of streams) res.destroy()
      streams.clear()
    },
    openStreams: () => streams.size,
    sends: () => fake.calls.filter((c) => c.method === 'send'),
    close: () =>
      new Promise<void>((resolve) => {
        fake.dropStreams()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }

  const json = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }

  function answer(call: { method?: string; params?: Record<string, any>; id?: unknown }): unknown {
    const params = call.params ?? {}
    if (params.account !== undefined && params.account !== account) return { jsonrpc: '2.0', id: call.id, error: { code: -1, message: `Specified account does not exist` } }
    fake.calls.push({ method: call.method ?? '', params })
    switch (call.method) {
      case 'send': {
        const timestamp = nextTimestamp()
        // The daemon syncs what we send to our own number back to us, like any linked device would see it.
        if (Array.isArray(params.recipient) && params.recipient.includes(account)) setTimeout(() => fake.push(ownSent(params.message, { timestamp })), 5)
        return { jsonrpc: '2.0', id: call.id, result: { timestamp, results: [{ type: 'SUCCESS' }] } }
      }
      case 'sendTyping':
        return { jsonrpc: '2.0', id: call.id, result: {} }
      case 'getAttachment': {
        const data = fake.attachments.get(params.id)
        if (!data) return { jsonrpc: '2.0', id: call.id, error: { code: -1, message: 'Attachment not found' } }
        return { jsonrpc: '2.0', id: call.id, result: { data: data.toString('base64') } }
      }
      default:
        return { jsonrpc: '2.0', id: call.id, error: { code: -32601, message: 'Method not implemented' } }
    }
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (req.method === 'GET' && url.pathname === '/api/v1/check') {
      fake.checks++
      res.writeHead(fake.checkStatus)
      return res.end()
    }
    if (req.method === 'GET' && url.pathname === '/api/v1/events') {
      const lastEventId = req.headers['last-event-id'] as string | undefined
      fake.connections.push({ ...(lastEventId ? { lastEventId } : {}), ...(url.searchParams.get('account') ? { account: url.searchParams.get('account')! } : {}) })
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write(':\n\n')
      if (lastEventId) {
        const known = kept.some((e) => String(e.id) === lastEventId)
        for (const event of kept) if (!known || event.id > Number(lastEventId)) write(res, event)
      }
      streams.add(res)
      res.on('close', () => streams.delete(res))
      return
    }
    if (req.method === 'POST' && url.pathname === '/api/v1/rpc') {
      let body: any
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        return json(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
      }
      return json(res, 200, Array.isArray(body) ? body.map(answer) : answer(body))
    }
    res.writeHead(404)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}
