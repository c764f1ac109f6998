export declare function resolveAgentHome(env?: NodeJS.ProcessEnv): string
