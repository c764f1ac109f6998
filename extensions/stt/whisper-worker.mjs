// Runs one whisper.cpp transcription off the main thread (the binding's `full` is synchronous and
// takes seconds): loads the model, transcribes the 16 kHz samples, posts the text back.
import { parentPort, workerData } from 'node:worker_threads'
import { Whisper, WhisperFullParams, WhisperSamplingStrategy } from '@napi-rs/whisper'

const { modelPath, samples, language, threads } = workerData
const whisper = new Whisper(modelPath)
const params = new WhisperFullParams(WhisperSamplingStrategy.Greedy)
params.language = language
params.nThreads = threads
params.printProgress = false
params.printRealtime = false
params.printTimestamps = false
params.noTimestamps = true
parentPort.postMessage({ text: whisper.full(params, samples) })
