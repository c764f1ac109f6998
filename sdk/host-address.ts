// One spelling per host for policy matching: lowercase, no brackets or trailing dots, and every IP
// address in its canonical form after ipaddr.js parsing: `127.1`, `2130706433`, `0x7f.0.0.1`,
// `017700000001` → 127.0.0.1; IPv6 that embeds an IPv4 address (mapped `::ffff:`, compatible `::`,
// NAT64 `64:ff9b::`, 6to4 `2002:`) → that IPv4 address; `[0:0:0:0:0:0:0:1]` → ::1.

import { createRequire } from 'node:module'
import type * as Ipaddr from 'ipaddr.js'

type Address = Ipaddr.IPv4 | Ipaddr.IPv6
let lib: typeof Ipaddr | undefined
// ipaddr.js loads on first use only (the SDK is imported by every `agent` start).
const ipaddr = (): typeof Ipaddr => (lib ??= createRequire(import.meta.url)('ipaddr.js') as typeof Ipaddr)

/** The IPv4 address an IPv6 address carries and reaches, if it is one of the embedding forms. */
function embeddedIPv4(address: Ipaddr.IPv6): Ipaddr.IPv4 | undefined {
  const p = address.parts
  const v4 = (high: number, low: number) => new (ipaddr().IPv4)([high >> 8, high & 255, low >> 8, low & 255])
  if (address.isIPv4MappedAddress()) return address.toIPv4Address()
  const range = address.range()
  if (range === 'rfc6052') return v4(p[6]!, p[7]!)
  if (range === '6to4') return v4(p[1]!, p[2]!)
  // IPv4-compatible `::a.b.c.d` (deprecated, still routed by some stacks); `::` and `::1` are not.
  if (p.slice(0, 6).every((x) => x === 0) && !(p[6] === 0 && p[7]! <= 1)) return v4(p[6]!, p[7]!)
  return undefined
}

/** The host as an address (IPv4 where it embeds one), or undefined when it is a name. */
export function parseHostAddress(host: string): Address | undefined {
  const bare = host.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '').replace(/\.+$/, '')
  if (!bare || !ipaddr().isValid(bare)) return undefined
  const address = ipaddr().parse(bare)
  return address.kind() === 'ipv6' ? (embeddedIPv4(address as Ipaddr.IPv6) ?? address) : address
}

/** The one spelling of a host policies compare: lowercase name without trailing dots, or canonical IP. */
export function canonicalHost(host: string): string {
  const address = parseHostAddress(host)
  if (address) return address.toString()
  return host.trim().toLowerCase().replace(/^\[|\]$/g, '').replace(/\.+$/, '')
}

/** A CIDR rule (`10.0.0.0/8`, `fe80::/10`, `::ffff:127.0.0.0/104`), or undefined when the text is not one. Throws on a bad prefix. */
export function parseCidr(text: string): { address: Address; bits: number } | undefined {
  const match = /^\[?([^\]/]+)\]?\/(\d{1,3})$/.exec(text.trim())
  if (!match || !ipaddr().isValid(match[1]!)) return undefined
  const address = ipaddr().parse(match[1]!)
  const bits = Number(match[2])
  if (bits > (address.kind() === 'ipv4' ? 32 : 128)) throw new Error(`"${text}" has a prefix longer than the address`)
  // A mapped IPv6 range is the IPv4 range it covers.
  if (address.kind() === 'ipv6' && (address as Ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return { address: (address as Ipaddr.IPv6).toIPv4Address(), bits: bits - 96 }
  return { address, bits }
}

/** Whether a host (any spelling) lies inside a CIDR range. */
export function hostInCidr(host: string, cidr: { address: Address; bits: number }): boolean {
  const address = parseHostAddress(host)
  if (!address) return false
  const forms: Address[] = [address]
  if (address.kind() === 'ipv4') forms.push((address as Ipaddr.IPv4).toIPv4MappedAddress())
  return forms.some((a) => a.kind() === cidr.address.kind() && a.match(cidr.address, cidr.bits))
}

/** Names and addresses that reach this machine whatever DNS says: `localhost`, `*.localhost` (RFC 6761), `0.0.0.0`, `::`. */
export function isLocalAlias(host: string): boolean {
  const canonical = canonicalHost(host)
  return canonical === 'localhost' || canonical.endsWith('.localhost') || canonical === '0.0.0.0' || canonical === '::'
}

/**
 * Whether a bind address or host name means this machine only: `localhost`, or an address that
 * parses (as the OS parses it: `127.1`, `0x7f.1`, `::ffff:127.0.0.1`) into 127.0.0.0/8 or ::1.
 * Anything else, including names that merely resolve to loopback, is not. Only the mapped IPv6
 * form counts, not NAT64 or 6to4: those leave the machine.
 */
export function isLoopbackHost(host: string): boolean {
  let verdict = loopbackVerdicts.get(host)
  if (verdict === undefined) {
    verdict = loopbackVerdict(host)
    // Asked on every keyless API request with the same few Host headers: the parse is kept.
    if (loopbackVerdicts.size >= 256) loopbackVerdicts.clear()
    loopbackVerdicts.set(host, verdict)
  }
  return verdict
}

const loopbackVerdicts = new Map<string, boolean>()

function loopbackVerdict(host: string): boolean {
  const h = host.trim().replace(/^\[|\]$/g, '').toLowerCase()
  if (h === 'localhost') return true
  if (!ipaddr().isValid(h)) return false
  try {
    return ipaddr().process(h).range() === 'loopback'
  } catch {
    return false
  }
}
