// `agent gateway whatsapp setup`: installs the bridge's own dependencies on first use (`npm ci` in
// its package folder, from its lock file), then runs the bridge in pairing mode in this terminal:
// it draws the QR code, and once the phone has linked the session, the gateway can start WhatsApp.

import { spawn } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import type { CliContext, CliSubcommand } from 'agent/sdk'
import { childEnvironment } from './bridge-process.ts'
import { authDir, BRIDGE_DIR, bridgeInstalled, BUNDLED_BRIDGE, isLinked } from './settings.ts'

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'inherit' })
    child.once('error', () => resolve(127))
    child.once('exit', (code) => resolve(code ?? 1))
  })
}

async function setup(ctx: CliContext): Promise<number> {
  const home = ctx.settings.home
  if (isLinked(home) && !ctx.argv.force) {
    ctx.out('WhatsApp is already linked. `agent gateway run` starts it; `agent gateway whatsapp setup --force` links again.')
    return 0
  }
  if (!bridgeInstalled()) {
    ctx.err(`Installing the WhatsApp bridge (npm ci in ${BRIDGE_DIR}) …`)
    const code = await run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--no-audit', '--no-fund'], { cwd: BRIDGE_DIR })
    if (code !== 0 || !bridgeInstalled()) {
      ctx.err(`agent: installing the WhatsApp bridge failed (npm exit ${code}); run \`npm ci\` in ${BRIDGE_DIR} and try again`)
      return 1
    }
  }
  if (ctx.argv.force) rmSync(authDir(home), { recursive: true, force: true })
  mkdirSync(authDir(home), { recursive: true, mode: 0o700 })
  const code = await run(process.execPath, [BUNDLED_BRIDGE], { cwd: BRIDGE_DIR, env: childEnvironment({ WHATSAPP_BRIDGE_SETUP: '1', WHATSAPP_AUTH_DIR: authDir(home) }) })
  if (code !== 0 || !isLinked(home)) {
    ctx.err('agent: WhatsApp was not linked; run `agent gateway whatsapp setup` again')
    return 1
  }
  ctx.out('WhatsApp is linked. Set WHATSAPP_ALLOWED_USERS (your number, for self-chat) and run `agent gateway run`.')
  return 0
}

export function whatsappSubcommands(): Record<string, CliSubcommand> {
  return {
    whatsapp: {
      description: 'WhatsApp: install the bridge and link your phone',
      subcommands: {
        setup: {
          description: 'Install the WhatsApp bridge (first use) and link this gateway to your phone by QR code',
          options: { force: { type: 'boolean', describe: 'Forget the linked session and link again' } },
          run: setup,
        },
      },
    },
  }
}
