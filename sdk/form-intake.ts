// Bounded intake of an application/x-www-form-urlencoded body (provider webhooks): the number of
// fields is counted before anything is decoded, and each decoded name and value is bounded.

import { HttpError } from './http-error.ts'

export interface FormBounds {
  /** Most fields allowed. Default 200 (a provider webhook sends a few dozen). */
  maxFields?: number
  /** Longest decoded name or value, in characters. Default 16,384. */
  maxFieldLength?: number
}

/** Parses a form body within `bounds`; HttpError 400 (`form_too_large`) otherwise. */
export function parseFormBounded(text: string, bounds: FormBounds = {}): URLSearchParams {
  const maxFields = bounds.maxFields ?? 200
  const maxFieldLength = bounds.maxFieldLength ?? 16_384
  let fields = 0
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text.charCodeAt(i) !== 0x26) continue
    // A field ends at each '&' or the end; empty ones (`a=1&&b=2`) are skipped by URLSearchParams too.
    if (i > 0 && text.charCodeAt(i - 1) !== 0x26 && ++fields > maxFields) {
      throw new HttpError(400, `Form body has more than ${maxFields} fields`, { code: 'form_too_large' })
    }
  }
  const params = new URLSearchParams(text)
  for (const [name, value] of params) {
    if (name.length > maxFieldLength || value.length > maxFieldLength) {
      throw new HttpError(400, `A form field is longer than ${maxFieldLength} characters`, { code: 'form_too_large' })
    }
  }
  return params
}
