// A JSON Schema (draft 2020-12) of capability files, for editors (`"$schema"` in a file) and
// `agent capabilities schema`. With a manifest set, permission identifiers are listed with their
// descriptions, so editors complete and flag unknown ones.

import { PATH_VARIABLES } from './base-dirs.ts'
import type { ManifestSet } from './manifests.ts'
import { TARGETS } from './types.ts'

const IDENTIFIER_PATTERN = '^(?!tauri-plugin-)[A-Za-z0-9]+(-[A-Za-z0-9]+)*(:[A-Za-z0-9]+(-[A-Za-z0-9]+)*)?$|^core(:[A-Za-z0-9]+(-[A-Za-z0-9]+)*)+$'

export function capabilitySchema(manifests?: ManifestSet): Record<string, unknown> {
  const known = manifests?.identifiers() ?? []
  const identifier: Record<string, unknown> = known.length
    ? { description: 'A permission or permission set identifier.', anyOf: known.map((k) => ({ const: k.id, ...(k.description ? { description: k.description } : {}) })) }
    : { type: 'string', description: 'A permission or permission set identifier.', pattern: IDENTIFIER_PATTERN, maxLength: 116 }
  const appSpec = {
    description: 'Application to open with: absent/null = only the default application, true = any, false = none, a string = exactly that one.',
    anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }],
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://agent.invalid/schemas/capability-file.json',
    title: 'CapabilityFile',
    description: 'A capability file: one capability object, an array of them, or an object with a `capabilities` array.',
    anyOf: [
      { $ref: '#/$defs/Capability' },
      { type: 'array', items: { $ref: '#/$defs/Capability' } },
      { type: 'object', required: ['capabilities'], properties: { $schema: { type: 'string' }, capabilities: { type: 'array', items: { $ref: '#/$defs/Capability' } } } },
    ],
    $defs: {
      Capability: {
        type: 'object',
        description: 'Groups permissions and binds them to windows or webviews. A window or webview that matches no capability has no access to the command layer.',
        required: ['identifier', 'permissions'],
        properties: {
          $schema: { type: 'string' },
          identifier: { type: 'string', description: 'Name of the capability, unique across all capability files.' },
          description: { type: 'string', default: '', description: 'What the grouped permissions should allow.' },
          remote: {
            description: 'Remote content that may use the capability. Unset: only local app content.',
            anyOf: [
              {
                type: 'object',
                required: ['urls'],
                properties: { urls: { type: 'array', items: { type: 'string' }, description: 'URLPattern strings, e.g. `https://*.example.com` or `https://example.com:*/app/*`.' } },
              },
              { type: 'null' },
            ],
          },
          local: { type: 'boolean', default: true, description: 'Whether the capability is active for local app URLs.' },
          windows: { type: 'array', items: { type: 'string' }, description: 'Window labels, glob patterns allowed. A match enables every webview of that window.' },
          webviews: { type: 'array', items: { type: 'string' }, description: 'Webview labels, glob patterns allowed. A match enables the capability regardless of window labels.' },
          permissions: { type: 'array', uniqueItems: true, items: { $ref: '#/$defs/PermissionEntry' }, description: 'Permissions attached to the capability.' },
          platforms: {
            description: 'Limits the targets (absent or null: all; an empty list: none).',
            anyOf: [{ type: 'array', items: { enum: [...TARGETS] } }, { type: 'null' }],
          },
        },
      },
      PermissionEntry: {
        anyOf: [
          { $ref: '#/$defs/Identifier' },
          {
            type: 'object',
            required: ['identifier'],
            properties: {
              identifier: { $ref: '#/$defs/Identifier' },
              allow: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/ScopeValue' } }, { type: 'null' }], description: 'Scope values this entry allows.' },
              deny: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/ScopeValue' } }, { type: 'null' }], description: 'Scope values this entry denies; deny wins over allow.' },
            },
          },
        ],
      },
      Identifier: identifier,
      ScopeValue: {
        description: 'Any value; the command interprets it. The opener takes URL and path entries.',
        anyOf: [{ $ref: '#/$defs/OpenerScopeEntry' }, {}],
      },
      OpenerScopeEntry: {
        anyOf: [
          { type: 'object', required: ['url'], properties: { url: { type: 'string', description: 'A UNIX glob on the URL (`*` crosses `/`): `https://example.com/*`.' }, app: appSpec } },
          {
            type: 'object',
            required: ['path'],
            properties: {
              path: { type: 'string', description: `A path glob; may start with a base directory variable: ${PATH_VARIABLES.map((v) => `$${v}`).join(', ')}.` },
              app: appSpec,
            },
          },
        ],
      },
    },
  }
}
