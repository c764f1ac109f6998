// The WhatsApp Web side of the bridge, on baileys (imported here and nowhere else): the socket with
// its multi-file auth state under WHATSAPP_AUTH_DIR, a quiet pino-shaped logger, and the events the
// bridge cares about (pairing QR, open, close, new messages). The socket opens its websocket when it
// is built; `waWebSocketUrl` points it elsewhere (a test builds one against a loopback address).

/** A pino-shaped logger for baileys: warnings and errors to `write`, the rest dropped unless verbose. */
export function bridgeLogger(write, verbose = false) {
  const line = (level) => (obj, msg) => {
    const text = typeof obj === 'string' ? obj : (msg ?? obj?.msg ?? '')
    const error = obj?.err?.message ?? obj?.error?.message
    write(`${level}: ${text}${error ? ` (${error})` : ''}`)
  }
  const quiet = () => {}
  const logger = {
    level: verbose ? 'debug' : 'warn',
    trace: quiet,
    debug: verbose ? line('debug') : quiet,
    info: verbose ? line('info') : quiet,
    warn: line('warn'),
    error: line('error'),
    fatal: line('fatal'),
    child: () => logger,
  }
  return logger
}

/**
 * Builds the socket. events: { onQr(qr), onOpen(me), onClose({ statusCode, loggedOut }), onMessages(messages) }.
 * Resolves with { sock, baileys }.
 */
export async function createSocket({ authDir, log = () => {}, waWebSocketUrl, events = {}, verbose = false }) {
  const baileys = await import('baileys')
  const makeWASocket = baileys.makeWASocket ?? baileys.default
  const { state, saveCreds } = await baileys.useMultiFileAuthState(authDir)
  const sock = makeWASocket({
    auth: state,
    logger: bridgeLogger(log, verbose),
    browser: baileys.Browsers.ubuntu('Agent'),
    markOnlineOnConnect: false,
    syncFullHistory: false,
    ...(waWebSocketUrl ? { waWebSocketUrl } : {}),
  })
  sock.ev.on('creds.update', saveCreds)
  sock.ev.on('connection.update', (update) => {
    if (update.qr) events.onQr?.(update.qr)
    if (update.connection === 'open') events.onOpen?.({ id: sock.user?.id, lid: sock.user?.lid })
    if (update.connection === 'close') {
      const statusCode = update.lastDisconnect?.error?.output?.statusCode
      events.onClose?.({ statusCode, loggedOut: statusCode === baileys.DisconnectReason.loggedOut })
    }
  })
  sock.ev.on('messages.upsert', ({ messages, type }) => {
    // 'notify' is live traffic; 'append' is history and our own sends.
    if (type === 'notify') events.onMessages?.(messages)
  })
  return { sock, baileys }
}
