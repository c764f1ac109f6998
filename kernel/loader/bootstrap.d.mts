import type { Jiti } from 'jiti'
export declare const AGENT_ROOT: string
export declare const SDK_ALIASES: Record<string, string>
export declare function esbuildTransform(options: { source: string; filename?: string }): { code: string }
export declare function sharedJiti(): Jiti
