// Structured-output checks off the main thread (driven by schema-check.ts): a client's JSON Schema is
// compiled here, checked before the model runs, and the model's answer is validated against it
// here. @cfworker/json-schema runs `pattern` / `patternProperties` through `new RegExp(p, 'u')`,
// which can backtrack for minutes on an ordinary sentence; here that only stalls this thread, which
// the main thread terminates past its deadline. Plain JavaScript: the gateway loads TypeScript
// through jiti, which a worker would not inherit.
//
// Messages in: {id, op: 'check' | 'validate' | 'stats', key, schema (JSON text), answer}.
// Messages out: {ready: true} once loaded, then {id, kind, ...} per message:
//   'ok' (schema usable / answer matches), 'schema' {why} (the schema cannot be used),
//   'invalid' {why} (the answer is not JSON or too deep to check), 'mismatch' {where, error},
//   'stats' {cached, chars}.

import { parentPort, workerData } from 'node:worker_threads'
import { Validator } from '@cfworker/json-schema'

const { cacheEntries, cacheChars } = workerData

/** Compiled validators by schema hash, least recently used first; bounded in count and in schema text. */
const cache = new Map()
let cachedChars = 0

class SchemaProblem extends Error {}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)
const isSchema = (value) => typeof value === 'boolean' || isObject(value)
const clip = (text, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** Where a subschema is, as a JSON pointer fragment (or its `$id` URI when it has one of its own). */
function where(node) {
  const uri = node.__absolute_uri__ ?? ''
  if (uri.startsWith('https://github.com/cfworker')) {
    const hash = uri.indexOf('#')
    if (hash < 0) return '#'
    try {
      return decodeURIComponent(uri.slice(hash))
    } catch {
      return uri.slice(hash)
    }
  }
  return uri || '#'
}

const SCHEMA_KEYWORDS = ['not', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'contains', 'additionalItems', 'unevaluatedItems']
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']

function regex(source, at, keyword) {
  if (typeof source !== 'string') throw new SchemaProblem(`"${keyword}" at ${at} must be a string`)
  try {
    new RegExp(source, 'u')
  } catch (error) {
    throw new SchemaProblem(`"${keyword}" at ${at} is not a valid regular expression: ${clip(error.message)}`)
  }
}

/**
 * The shape of the keywords the validator applies (a wrong one throws mid-validation), every
 * regular expression compiles, and every `$ref` resolves.
 */
function checkNode(node, lookup) {
  const at = where(node)
  for (const keyword of SCHEMA_KEYWORDS) {
    if (node[keyword] !== undefined && !isSchema(node[keyword])) throw new SchemaProblem(`"${keyword}" at ${at} must be a schema (an object or a boolean)`)
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = node[keyword]
    if (list !== undefined && (!Array.isArray(list) || !list.every(isSchema))) throw new SchemaProblem(`"${keyword}" at ${at} must be a list of schemas`)
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword]
    if (map !== undefined && (!isObject(map) || !Object.values(map).every(isSchema))) throw new SchemaProblem(`"${keyword}" at ${at} must be an object of schemas`)
  }
  if (node.items !== undefined && !isSchema(node.items) && !(Array.isArray(node.items) && node.items.every(isSchema))) throw new SchemaProblem(`"items" at ${at} must be a schema`)
  if (node.dependencies !== undefined && !isObject(node.dependencies)) throw new SchemaProblem(`"dependencies" at ${at} must be an object`)
  if (node.enum !== undefined && !Array.isArray(node.enum)) throw new SchemaProblem(`"enum" at ${at} must be a list`)
  if (node.required !== undefined && (!Array.isArray(node.required) || !node.required.every((k) => typeof k === 'string'))) throw new SchemaProblem(`"required" at ${at} must be a list of strings`)
  if (node.type !== undefined && typeof node.type !== 'string' && !(Array.isArray(node.type) && node.type.every((t) => typeof t === 'string'))) throw new SchemaProblem(`"type" at ${at} must be a string or a list of strings`)
  if (node.pattern !== undefined) regex(node.pattern, at, 'pattern')
  if (isObject(node.patternProperties)) for (const key of Object.keys(node.patternProperties)) regex(key, at, 'patternProperties')
  if (node.$ref !== undefined) {
    if (typeof node.$ref !== 'string') throw new SchemaProblem(`"$ref" at ${at} must be a string`)
    if (lookup[node.__absolute_ref__ ?? node.$ref] === undefined) throw new SchemaProblem(`"$ref": ${clip(JSON.stringify(node.$ref), 200)} at ${at} does not resolve to a schema in this document`)
  }
}

/**
 * The subschemas applied to the same value as `node` (not to a part of it): a cycle of these never
 * ends, whatever the answer (`{"$ref": "#"}`, `{"allOf": [{"$ref": "#"}]}`, two `$defs` naming each
 * other). Recursion through `properties`, `items` … is fine: it descends into the answer.
 */
function inPlace(node, lookup, anchors) {
  const out = []
  const add = (schema) => {
    if (isObject(schema)) out.push(schema)
  }
  if (typeof node.$ref === 'string') add(lookup[node.__absolute_ref__ ?? node.$ref])
  // $recursiveRef goes to its static target or to a dynamic anchor: every one counts.
  if (node.$recursiveRef === '#') {
    add(lookup[node.__absolute_recursive_ref__])
    for (const anchor of anchors) add(anchor)
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[keyword])) node[keyword].forEach(add)
  add(node.not)
  if (node.if !== undefined) [node.if, node.then, node.else].forEach(add)
  for (const keyword of ['dependentSchemas', 'dependencies']) if (isObject(node[keyword])) Object.values(node[keyword]).forEach(add)
  return out
}

function checkCycles(nodes, lookup) {
  const anchors = nodes.filter((n) => n.$recursiveAnchor === true)
  const state = new Map() // 1: on the current path, 2: done
  for (const start of nodes) {
    if (state.has(start)) continue
    state.set(start, 1)
    const stack = [{ node: start, next: inPlace(start, lookup, anchors), i: 0 }]
    while (stack.length) {
      const top = stack.at(-1)
      if (top.i < top.next.length) {
        const next = top.next[top.i++]
        const seen = state.get(next)
        if (seen === 1) throw new SchemaProblem(`it refers to itself without descending into the value (a reference cycle through ${where(next)}), so no answer could ever be checked`)
        if (seen === undefined) {
          state.set(next, 1)
          stack.push({ node: next, next: inPlace(next, lookup, anchors), i: 0 })
        }
      } else {
        state.set(top.node, 2)
        stack.pop()
      }
    }
  }
}

/** Values every validator must get through without throwing (a malformed keyword throws on them). */
const PROBES = [null, true, 0, 0.5, '', 'a', [], [null], {}]

function compile(key, text) {
  const hit = cache.get(key)
  if (hit) {
    cache.delete(key)
    cache.set(key, hit)
    return hit
  }
  const schema = JSON.parse(text)
  let validator
  try {
    validator = new Validator(schema, '2020-12', false)
  } catch (error) {
    // An `$id` or `$ref` that is no URI, two subschemas claiming one URI.
    throw new SchemaProblem(error instanceof TypeError ? `an "$id" or "$ref" is not a valid URI (${clip(error.message)})` : clip(error.message))
  }
  const nodes = [...new Set(Object.values(validator.lookup))].filter(isObject)
  for (const node of nodes) checkNode(node, validator.lookup)
  checkCycles(nodes, validator.lookup)
  for (const probe of PROBES) {
    try {
      validator.validate(probe)
    } catch (error) {
      throw new SchemaProblem(`it cannot be applied (${clip(error.message)})`)
    }
  }
  const entry = { validator, chars: text.length }
  cache.set(key, entry)
  cachedChars += entry.chars
  for (const [oldest, old] of cache) {
    if (cache.size <= cacheEntries && cachedChars <= cacheChars) break
    if (oldest === key) break
    cache.delete(oldest)
    cachedChars -= old.chars
  }
  return entry
}

function handle(message) {
  if (message.op === 'stats') return { kind: 'stats', cached: cache.size, chars: cachedChars }
  let entry
  try {
    entry = compile(message.key, message.schema)
  } catch (error) {
    if (error instanceof SchemaProblem) return { kind: 'schema', why: error.message }
    if (error instanceof RangeError) return { kind: 'schema', why: 'it is nested too deeply' }
    return { kind: 'schema', why: clip(String(error?.message ?? error)) }
  }
  if (message.op === 'check') return { kind: 'ok' }
  let value
  try {
    value = JSON.parse(message.answer)
  } catch {
    return { kind: 'invalid', why: 'the answer is not valid JSON' }
  }
  let outcome
  try {
    outcome = entry.validator.validate(value)
  } catch (error) {
    // A recursive schema follows the answer down: a deep enough answer overflows the stack.
    if (error instanceof RangeError) return { kind: 'invalid', why: 'the answer is nested too deeply to check against the schema' }
    return { kind: 'schema', why: `it cannot be applied to the answer (${clip(String(error?.message ?? error))})` }
  }
  if (outcome.valid) return { kind: 'ok' }
  const last = outcome.errors.at(-1)
  return { kind: 'mismatch', where: last?.instanceLocation, error: last ? clip(last.error) : undefined }
}

parentPort.on('message', (message) => parentPort.postMessage({ id: message.id, ...handle(message) }))
parentPort.postMessage({ ready: true })
