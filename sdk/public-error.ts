// What an error may tell someone outside the machine (an API client, a chat user): what went wrong,
// not where things are. A provider's failure names its endpoint, a host, an address or a file; the
// log keeps all of it for the operator.

const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi
const IPV6 = /\[[0-9a-f:.]+\](?::\d+)?/gi
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g
/** host:port (`api.internal:8443`, `localhost:11434`), the port telling it from prose; a letter first, so `12:30` stays. */
const HOST_PORT = /\b(?=[a-z0-9-]*[a-z])[a-z0-9-]+(?:\.[a-z0-9-]+)*:\d{2,5}\b/gi
/** Name lookups say the name they failed on: `getaddrinfo ENOTFOUND llm.corp.example`. */
const LOOKUP = /\b(ENOTFOUND|EAI_AGAIN)\s+[\w.-]+/g
/** An absolute path of two parts or more (`/home/u/.agent/config.yaml`), after a space, quote, bracket or `=`. */
const PATH = /(^|[\s"'(=])\/(?:[\w.@+~-]+\/)+[\w.@+~-]*/g

/** `text` with URLs, addresses, host:port pairs, looked-up names and absolute paths replaced by placeholders. */
export function publicErrorText(text: string): string {
  return text
    .replace(URL, '<url>')
    .replace(IPV6, '<address>')
    .replace(IPV4, '<address>')
    .replace(LOOKUP, '$1 <host>')
    .replace(HOST_PORT, '<address>')
    .replace(PATH, '$1<path>')
}
