import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { GatewayModeError } from './errors';
import type { GatewayConnection, HostLookup } from './gateway.options';

const PRIVATE = new BlockList();
const IPV4 = '0.0.0.0/8 10.0.0.0/8 100.64.0.0/10 127.0.0.0/8 169.254.0.0/16 172.16.0.0/12 192.0.0.0/24';
const MORE_IPV4 = '192.168.0.0/16 198.18.0.0/15 224.0.0.0/4 240.0.0.0/4';
for (const subnet of `${IPV4} ${MORE_IPV4} ::/128 ::1/128 fc00::/7 fe80::/10 ff00::/8`.split(' ')) {
  const [net, prefix] = subnet.split('/');
  PRIVATE.addSubnet(net, Number(prefix), net.includes(':') ? 'ipv6' : 'ipv4');
}

/**
 * Private, loopback, link-local, unique-local, multicast or unspecified; not an IP address counts as private.
 * `BlockList` checks an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`) against the IPv4 subnets.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  return family === 0 || PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether the base URL points at this machine. */
export function isLoopbackBaseUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  return family === 6 && (host === '::1' || /^::ffff:127\./i.test(host));
}

const defaultLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Refuses a resend (§4.8) in production (§6.6) or, but to a local sandbox, to a non-public https destination. */
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

/** Why `url` is not https with every address of its host public (nothing private, local or multicast), else `null`. */
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
  const resolve = async () => (await lookup(host)).map((a) => a.address);
  const addresses = isIP(host) ? [host] : await resolve().catch((): string[] => []);
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const blocked = addresses.filter(isPrivateAddress);
  if (blocked.length) return `host ${host} resolves to a private or local address (${blocked.join(', ')})`;
  return null;
}
