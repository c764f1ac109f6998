// The capability engine as a library (pure: no kernel, no I/O beyond what the caller passes in):
// parse and check capability files, build permission manifests, resolve access, check opener
// scopes, and the command-layer contract extensions expose frontend commands through.

export * from './types.ts'
export { identifierError, hasEmptySegment, parseIdentifier, commandToIdentifier, COMMAND_NAME, MAX_IDENTIFIER_LENGTH, type ParsedIdentifier } from './identifier.ts'
export { Glob, GlobSyntaxError, globError, escapeGlob, type GlobOptions } from './glob.ts'
export { RemoteUrlPattern, remoteUrlError } from './remote-url.ts'
export { parseCapabilityFile, formatOf, canonicalJson, describeValue, type ParseResult, type CapabilityFormat } from './parse.ts'
export { CORE_NAMESPACES, CORE_DEFAULT_MEMBERS } from './core-manifests.ts'
export {
  APP_MANIFEST_KEY,
  ManifestSet,
  appManifest,
  builtinManifests,
  commandPermissions,
  coreManifests,
  createManifest,
  openerManifest,
  DEFAULT_OPENER_URLS,
  type AppManifestInput,
  type ExpandResult,
  type ExpandedPermission,
  type ManifestInput,
} from './manifests.ts'
export { checkCapabilityFiles, checkCapabilities, type CapabilityFileText, type CheckResult } from './validate.ts'
export { ResolvedAcl, currentTarget, manifestKeyOf, type ResolveOptions } from './resolve.ts'
export { PATH_VARIABLES, defaultBaseDirectories, expandPathEntry, isPathVariable, parseUserDirs, type BaseDirectories, type BaseDirectoryInput, type PathVariable } from './base-dirs.ts'
export { mergeScopes, uniqueValues } from './scope-lists.ts'
export { appMatches, asPathEntry, asUrlEntry, checkPathScope, checkUrlScope, openerScopeError, type AppSpec, type PathCheckOptions, type PathScopeEntry, type ScopeVerdict, type UrlScopeEntry } from './opener-scope.ts'
export { capabilitySchema } from './schema.ts'
export { parsePermissionFile, readPermissionDocument, type PermissionDocument, type PermissionFileOptions, type PermissionFileResult } from './permission-file.ts'
export { buildManifests, pluginNameError, type PermissionSource, type PluginManifestsResult } from './plugin-manifests.ts'
export { lineLocator, type LineOf } from './source-lines.ts'
export * from './command-layer.ts'
