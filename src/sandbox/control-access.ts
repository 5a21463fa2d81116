import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import { SandboxError } from './errors';

/** Header carrying the control token, when the sandbox was given one (`controlToken`). */
export const CONTROL_TOKEN_HEADER = 'x-sandbox-control-token';

/** Who may use the `/_sandbox` controls. */
export interface ControlAccess {
  /** Host names accepted besides loopback (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`). */
  hosts: readonly string[];
  /** When set, every control request but the browser's GETs (payment page, QR, slip) must carry it. */
  token: string | null;
}

/** GETs a browser makes from a link or an `<img>` (the invoice's `links.url`, `pix.image`): no header possible. */
const BROWSER_GETS = [/^\/_sandbox\/invoices\/[^/]+\/page$/, /^\/_sandbox\/(qr|billet)\/[^/]+\.(png|svg)$/];

/**
 * The controls move money and read webhook tokens, so a web page must not reach them: the `Host` must be loopback
 * (or a configured name), which stops DNS rebinding; anything but GET must be `Content-Type: application/json`,
 * which a cross-origin page cannot send without a preflight the sandbox never grants (a `text/plain` or form post
 * is refused); and with a control token, the token. The service's own API is not affected.
 */
export function checkControlAccess(req: IncomingMessage, path: string, access: ControlAccess): void {
  const host = hostnameOf(req.headers.host);
  if (host === null || !(isLoopback(host) || access.hosts.includes(host))) {
    throw new SandboxError(403, 'forbidden', 'the sandbox controls answer only requests to a loopback host');
  }
  const method = (req.method ?? 'GET').toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (type !== 'application/json') {
      throw new SandboxError(
        415,
        'unsupported_media_type',
        'the sandbox controls take Content-Type: application/json',
      );
    }
  } else if (BROWSER_GETS.some((pattern) => pattern.test(path))) return;
  if (access.token !== null && !sameSecret(req.headers[CONTROL_TOKEN_HEADER], access.token)) {
    throw new SandboxError(403, 'forbidden', `the sandbox controls need the ${CONTROL_TOKEN_HEADER} header`);
  }
}

/** `127.0.0.1:4010` → `127.0.0.1`, `[::1]:4010` → `::1`, `Localhost.` → `localhost`; `null` when absent. */
function hostnameOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  const name = value.startsWith('[') ? value.slice(1, value.indexOf(']')) : value.replace(/:\d*$/, '');
  return name.replace(/\.$/, '') || null;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(expected));
}
