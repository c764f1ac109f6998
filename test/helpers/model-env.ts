// The environment of an `agent gateway run` child process that talks to a scripted model: the
// custom OpenAI-compatible provider at the model's loopback URL, and the webhook and API server
// on port 0 so that parallel tests never collide.

/** Environment pointing a spawned agent at `model` (a startScriptedModel server). */
export function scriptedModelEnv(model: { url: string }): Record<string, string> {
  return {
    WEBHOOK_PORT: '0',
    API_SERVER_PORT: '0',
    AGENT_INFERENCE_PROVIDER: 'custom',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'test-key',
    AGENT_MODEL: 'scripted-model',
  }
}
