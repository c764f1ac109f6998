// One raw HTTP request and its whole answer (status, headers but the date, text body), with
// node:http: fetch cannot send a foreign Host or leave it out.

import { request } from 'node:http'

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

export function send(url: string, path: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers, agent: false, setHost: !('host' in headers) }, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => {
        const { date, ...rest } = res.headers
        resolve({ status: res.statusCode!, headers: rest, body: text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}
