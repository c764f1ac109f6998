// The `local` provider's built-in engine: whisper.cpp through @napi-rs/whisper, in a worker thread so
// the gateway keeps answering while a voice note is transcribed. One transcription at a time: each
// worker loads the model (~150 MB for base) and uses several cores, so parallel ones would only
// compete for memory and CPU.

import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

const TIMEOUT_MS = 300_000

let queue: Promise<unknown> = Promise.resolve()

export function transcribeWithWhisper(modelPath: string, samples: Float32Array, language: string, signal?: AbortSignal): Promise<string> {
  const run = queue.then(() => runWorker(modelPath, samples, language, signal))
  queue = run.catch(() => undefined)
  return run
}

function runWorker(modelPath: string, samples: Float32Array, language: string, signal?: AbortSignal): Promise<string> {
  if (signal?.aborted) return Promise.reject(new Error('the transcription was cancelled'))
  const worker = new Worker(new URL('./whisper-worker.mjs', import.meta.url), {
    workerData: { modelPath, samples, language, threads: Math.max(1, Math.min(4, availableParallelism() - 1)) },
  })
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => stop(new Error('the local transcription took longer than 5 minutes')), TIMEOUT_MS)
    const onAbort = () => stop(new Error('the transcription was cancelled'))
    signal?.addEventListener('abort', onAbort, { once: true })
    function stop(error?: Error, text?: string) {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      void worker.terminate()
      if (error) reject(error)
      else resolve(text!)
    }
    worker.once('message', (message: { text: string }) => stop(undefined, message.text.replace(/\s+/g, ' ').trim()))
    worker.once('error', (error) => stop(new Error(`the local engine failed: ${error.message}`)))
    worker.once('exit', (code) => stop(new Error(`the local engine stopped (exit ${code})`)))
  })
}
