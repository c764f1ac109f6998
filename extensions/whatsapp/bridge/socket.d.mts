// Types of socket.mjs for the TypeScript side (tests).

export declare function bridgeLogger(write: (line: string) => void, verbose?: boolean): Record<string, unknown>
export declare function createSocket(options: {
  authDir: string
  log?: (line: string) => void
  waWebSocketUrl?: string
  verbose?: boolean
  events?: {
    onQr?(qr: string): void
    onOpen?(me: { id?: string; lid?: string }): void
    onClose?(close: { statusCode?: number; loggedOut: boolean }): void
    onMessages?(messages: unknown[]): void
  }
}): Promise<{ sock: any; baileys: any }>
