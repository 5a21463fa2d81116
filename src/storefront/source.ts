import type { PaymentSource, PaymentView } from './types.js';
import { readView } from './view.js';

/** A failed answer of the store: its status and, for a 429, how long it asked us to wait. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterMs: number | null,
  ) {
    super(`the store answered ${status}`);
  }
}

/** Longest wait a `Retry-After` may impose: the shopper is watching. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * The REST status route as a {@link PaymentSource}: `GET src` for the view, `POST src/renewal` for a new PIX code.
 * `headers` go on every request (Medusa's `x-publishable-api-key`); cookies follow the page's own rules.
 */
export function httpSource(src: string, headers: Record<string, string>): Required<PaymentSource> {
  const url = new URL(src, document.baseURI);
  const renewal = new URL(url.href);
  renewal.pathname = `${renewal.pathname.replace(/\/+$/, '')}/renewal`;
  const call = async (target: URL, method: 'GET' | 'POST'): Promise<PaymentView> => {
    const res = await fetch(target.href, {
      method,
      headers: { Accept: 'application/json', ...headers },
      cache: 'no-store',
    });
    if (!res.ok) throw new HttpError(res.status, retryAfter(res.headers.get('Retry-After')));
    return readView(await res.json());
  };
  return { load: () => call(url, 'GET'), renew: () => call(renewal, 'POST') };
}

/** `Retry-After` in seconds (or an HTTP date) → ms, bounded. */
function retryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.min(Math.max(seconds * 1000, 0), MAX_RETRY_AFTER_MS) : null;
}
