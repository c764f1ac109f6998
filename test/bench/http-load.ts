// The load the HTTP benchmarks put on a server: one JSON body POSTed over kept-alive connections,
// one request after another (latency) or from N clients in a loop (throughput). Given several URLs,
// requests take them in turn (round robin, as a load balancer would).

import { Agent, request } from 'node:http'

export interface JsonLoad {
  /** One POST; resolves with the milliseconds it took, rejects on a status other than 200. */
  call(url: URL): Promise<number>
  /** `n` requests one after another: each one's milliseconds. */
  sequential(urls: URL | URL[], n: number): Promise<number[]>
  /** Requests per second over `n` requests from `concurrency` clients. */
  throughput(urls: URL | URL[], n: number): Promise<number>
  close(): void
}

export function jsonLoad(body: string, concurrency: number): JsonLoad {
  const pool = new Agent({ keepAlive: true, maxSockets: concurrency })
  const length = Buffer.byteLength(body)
  const call = (url: URL) =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now()
      const req = request(url, { method: 'POST', agent: pool, headers: { 'content-type': 'application/json', 'content-length': length } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))
          resolve(performance.now() - started)
        })
      })
      req.on('error', reject)
      req.end(body)
    })
  const list = (urls: URL | URL[]) => (Array.isArray(urls) ? urls : [urls])
  return {
    call,
    async sequential(urls, n) {
      const targets = list(urls)
      const times: number[] = []
      for (let i = 0; i < n; i++) times.push(await call(targets[i % targets.length]!))
      return times
    },
    async throughput(urls, n) {
      const targets = list(urls)
      let next = 0
      const started = performance.now()
      await Promise.all(Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < n; i = next++) await call(targets[i % targets.length]!)
      }))
      return n / ((performance.now() - started) / 1000)
    },
    close: () => pool.destroy(),
  }
}

/** The p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
