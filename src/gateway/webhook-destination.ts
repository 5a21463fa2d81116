import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { GatewayModeError } from './errors';
import type { GatewayConnection, HostLookup } from './gateway.options';

/**
 * Guards of the resend operation (§4.8, §6.6): it is for tests only, and using it in production puts the caller on
 * a blocklist; the destination it names is called by the service, so it must not point into private networks.
 */

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** Private, loopback, link-local, unique-local, multicast or unspecified (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

/** Whether the base URL points at this machine (a local sandbox). */
export function isLoopbackBaseUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  return family === 6 && (host === '::1' || /^::ffff:127\./i.test(host));
}

const defaultLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Refuses a resend before anything is sent:
 * - in production mode, always (§6.6: production use leads to a blocklist);
 * - unless the base URL is a sandbox on this machine (where tests use `http://127.0.0.1` receivers), a destination
 *   that is not https, or that resolves (every address) to a private, loopback, link-local or unique-local address.
 * @throws GatewayModeError (`sent: false`)
 */
export async function assertResendAllowed(
  conn: GatewayConnection,
  destination: string,
  context: { operation: string },
  lookup: HostLookup = defaultLookup,
): Promise<void> {
  const refuse = (why: string): never => {
    throw new GatewayModeError(context, `${why}; nothing was sent`);
  };
  if (conn.mode === 'production') {
    refuse(
      'webhook resend is for tests only and refused in production mode (§6.6: production use leads to a blocklist)',
    );
  }
  if (conn.mode === 'sandbox' && isLoopbackBaseUrl(conn.baseUrl)) return;
  const problem = await publicHttpsProblem(destination, lookup);
  if (problem) refuse(`the resend destination ${problem}`);
}

/**
 * Why `url` is not a public https address, or `null` when it is: it must use https, and its host must resolve,
 * every address of it, outside private, loopback, link-local, unique-local and multicast ranges (so a secret sent
 * there cannot reach this machine's network or a cloud metadata service).
 */
export async function publicHttpsProblem(
  url: string,
  lookup: HostLookup = defaultLookup,
): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'https:') return 'must use https';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host)).map((a) => a.address);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const blocked = addresses.filter(isPrivateAddress);
  if (blocked.length) return `host ${host} resolves to a private or local address (${blocked.join(', ')})`;
  return null;
}
