// Headless Chromium for the dashboard's browser tests and bench (Debian's `chromium`, driven by
// playwright-core); undefined where none is installed, so the caller can skip.

import { existsSync } from 'node:fs'

export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable']
  return candidates.find((path): path is string => Boolean(path && existsSync(path)))
}

export async function launchChromium(executablePath: string) {
  const { chromium } = await import('playwright-core')
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 30_000 })
}
