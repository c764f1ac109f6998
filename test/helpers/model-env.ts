// The environment of an agent (an `agent gateway run` child, a test kernel) that talks to a scripted model: the
// custom OpenAI-compatible provider at the model's loopback URL, and the webhook and API server
// on port 0 so that parallel tests never collide.

/** Environment pointing an agent (spawned or a test kernel) at `model` (a startScriptedModel server). */
export function scriptedModelEnv(model: { url: string }, apiKey = 'test-key'): Record<string, string> {
  return {
    WEBHOOK_PORT: '0',
    API_SERVER_PORT: '0',
    AGENT_INFERENCE_PROVIDER: 'custom',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: apiKey,
    AGENT_MODEL: 'scripted-model',
  }
}
