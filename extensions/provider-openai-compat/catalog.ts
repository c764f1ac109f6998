// The OpenAI-compatible providers: the aggregator, custom endpoints and the direct API-key vendors.
// Each entry names its canonical id, aliases, key and base-URL variables, and its default endpoint;
// the wire protocol is the same chat completions API for all of them.

/** openrouter: `reasoning: {effort}`; openai: `reasoning_effort`; thinking: `thinking: {type}` (GLM); none: not sent. */
export type ReasoningStyle = 'openrouter' | 'openai' | 'thinking' | 'none'

export interface CompatProviderSpec {
  name: string
  aliases: string[]
  label: string
  /** Key variables, first present wins. Empty: keyless (custom endpoints). */
  keyEnv: string[]
  baseUrlEnv?: string
  /** Undefined: the base URL must be configured (custom). */
  defaultBaseUrl?: string
  defaultModel?: string
  /** How `reasoningEffort` travels on the wire. */
  reasoning: ReasoningStyle
  /** A key is required (false for custom endpoints, which may be keyless). */
  requiresKey: boolean
  headers?: Record<string, string>
}

export const COMPAT_PROVIDERS: readonly CompatProviderSpec[] = [
  {
    name: 'openrouter',
    aliases: ['open-router', 'aggregator'],
    label: 'OpenRouter (aggregator)',
    keyEnv: ['OPENROUTER_API_KEY'],
    baseUrlEnv: 'OPENROUTER_BASE_URL',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    defaultModel: 'anthropic/claude-sonnet-4.5',
    reasoning: 'openrouter',
    requiresKey: true,
    headers: { 'X-Title': 'agent' },
  },
  {
    name: 'custom',
    // Local servers are custom endpoints with a familiar name.
    aliases: ['local', 'ollama', 'vllm', 'lmstudio', 'lm-studio', 'lm_studio', 'llamacpp', 'llama.cpp', 'llama-cpp'],
    label: 'Custom OpenAI-compatible endpoint',
    keyEnv: ['OPENAI_API_KEY'],
    baseUrlEnv: 'OPENAI_BASE_URL',
    reasoning: 'openai',
    requiresKey: false,
  },
  {
    name: 'openai',
    aliases: ['openai-api'],
    label: 'OpenAI API',
    keyEnv: ['OPENAI_API_KEY'],
    defaultBaseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-5-mini',
    reasoning: 'openai',
    requiresKey: true,
  },
  {
    name: 'zai',
    aliases: ['glm', 'z-ai', 'z.ai', 'zhipu'],
    label: 'Z.AI / GLM',
    keyEnv: ['GLM_API_KEY', 'ZAI_API_KEY', 'Z_AI_API_KEY'],
    baseUrlEnv: 'GLM_BASE_URL',
    defaultBaseUrl: 'https://api.z.ai/api/paas/v4',
    defaultModel: 'glm-4.6',
    reasoning: 'thinking',
    requiresKey: true,
  },
  {
    name: 'kimi-coding',
    aliases: ['kimi', 'moonshot'],
    label: 'Kimi / Moonshot',
    keyEnv: ['KIMI_API_KEY', 'KIMI_CODING_API_KEY'],
    baseUrlEnv: 'KIMI_BASE_URL',
    defaultBaseUrl: 'https://api.moonshot.ai/v1',
    defaultModel: 'kimi-k2-turbo-preview',
    reasoning: 'none',
    requiresKey: true,
  },
  {
    name: 'minimax',
    aliases: ['minimax-global'],
    label: 'MiniMax (global)',
    keyEnv: ['MINIMAX_API_KEY'],
    baseUrlEnv: 'MINIMAX_BASE_URL',
    defaultBaseUrl: 'https://api.minimax.io/v1',
    defaultModel: 'MiniMax-M2',
    reasoning: 'none',
    requiresKey: true,
  },
  {
    name: 'minimax-cn',
    aliases: ['minimax-china', 'minimax_cn'],
    label: 'MiniMax (China)',
    keyEnv: ['MINIMAX_CN_API_KEY'],
    baseUrlEnv: 'MINIMAX_CN_BASE_URL',
    defaultBaseUrl: 'https://api.minimaxi.com/v1',
    defaultModel: 'MiniMax-M2',
    reasoning: 'none',
    requiresKey: true,
  },
  {
    name: 'kilocode',
    aliases: ['kilo', 'kilo-code', 'kilo-gateway', 'code-gateway'],
    label: 'Kilo Code (code gateway)',
    keyEnv: ['KILOCODE_API_KEY'],
    baseUrlEnv: 'KILOCODE_BASE_URL',
    defaultBaseUrl: 'https://api.kilo.ai/api/gateway',
    defaultModel: 'anthropic/claude-sonnet-4.5',
    reasoning: 'openrouter',
    requiresKey: true,
  },
  {
    name: 'ai-gateway',
    aliases: ['aigateway', 'vercel', 'vercel-ai-gateway'],
    label: 'AI Gateway',
    keyEnv: ['AI_GATEWAY_API_KEY'],
    baseUrlEnv: 'AI_GATEWAY_BASE_URL',
    defaultBaseUrl: 'https://ai-gateway.vercel.sh/v1',
    defaultModel: 'anthropic/claude-sonnet-4.5',
    reasoning: 'openai',
    requiresKey: true,
  },
  {
    name: 'alibaba',
    aliases: ['dashscope', 'aliyun', 'qwen', 'alibaba-cloud', 'model-studio'],
    label: 'Alibaba Cloud Model Studio (DashScope)',
    keyEnv: ['DASHSCOPE_API_KEY'],
    baseUrlEnv: 'DASHSCOPE_BASE_URL',
    defaultBaseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    defaultModel: 'qwen3-coder-plus',
    reasoning: 'none',
    requiresKey: true,
  },
  {
    name: 'opencode-zen',
    aliases: ['opencode', 'zen'],
    label: 'OpenCode Zen',
    keyEnv: ['OPENCODE_ZEN_API_KEY'],
    baseUrlEnv: 'OPENCODE_ZEN_BASE_URL',
    defaultBaseUrl: 'https://opencode.ai/zen/v1',
    defaultModel: 'grok-code',
    reasoning: 'openai',
    requiresKey: true,
  },
  {
    name: 'deepseek',
    aliases: ['deep-seek'],
    label: 'DeepSeek',
    keyEnv: ['DEEPSEEK_API_KEY'],
    baseUrlEnv: 'DEEPSEEK_BASE_URL',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    defaultModel: 'deepseek-chat',
    reasoning: 'none',
    requiresKey: true,
  },
]
