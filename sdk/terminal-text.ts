// Text from a tool or a model on its way to a user's terminal: escape sequences (CSI, OSC, others)
// and control characters removed, so output cannot move the cursor, clear the screen or retitle it.

/** `text` without escape sequences and control characters; newlines and tabs are kept. */
export function terminalSafe(text: string): string {
  return text.replace(/\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b./g, '').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '')
}
