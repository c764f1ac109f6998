// Types for marked-terminal 7 (it ships none): the one export the chat's markdown renderer uses.

declare module 'marked-terminal' {
  /** A marked extension rendering to terminal text; options are the styles, highlight options go to cli-highlight. */
  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): import('marked').MarkedExtension
}
