import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { WEBHOOK_MERCHANT_TOKEN_SOURCE, WEBHOOKS_OPTIONS } from './constants';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import type { WebhookMerchantTokenSource } from './types';

/** The two `Webhook` header lines of a delivery, told apart (A13). */
export interface WebhookHeaderLines {
  /** The line that is not the token: the webhook identifier. */
  webhookId: string | null;
  /** The decoded token, or `null` when no line decodes to `merchant:service`. */
  token: { merchant: string; service: string } | null;
  /** Why no usable token was found. */
  problem: string | null;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** Seconds the service is asked to wait before retrying when the merchant token could not be read now. */
const RETRY_AFTER_SECONDS = 30;

/**
 * Longest service part of a token: the service issues at most 512 characters (A13, what the sandbox enforces), so
 * a longer one is none of its tokens (401).
 */
export const MAX_SERVICE_TOKEN_LENGTH = 512;

/**
 * Tells the `Webhook` header lines apart. Node joins repeated headers with ", " in `req.headers`, so pass the lines
 * as received (see {@link webhookLinesOf}); a line that was joined anyway is split again (base64 and webhook ids
 * have no commas). The token line is the one that is strict base64 of a text with a colon; order does not matter.
 * The token splits at its first colon: `merchant` (possibly empty) and `service`.
 */
export function readWebhookHeaderLines(received: readonly string[]): WebhookHeaderLines {
  const lines = received
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  const decoded = lines.map((line) => ({ line, text: decodeToken(line) }));
  const tokens = [...new Set(decoded.filter((d) => d.text !== null).map((d) => d.text as string))];
  const webhookId = decoded.find((d) => d.text === null)?.line ?? null;
  if (tokens.length === 0)
    return { webhookId, token: null, problem: 'no Webhook header line carries a token' };
  if (tokens.length > 1) return { webhookId, token: null, problem: 'several different Webhook tokens' };
  const text = tokens[0];
  const colon = text.indexOf(':');
  const token = { merchant: text.slice(0, colon), service: text.slice(colon + 1) };
  if (token.service.length === 0)
    return { webhookId, token: null, problem: 'the token has an empty service part' };
  if (token.service.length > MAX_SERVICE_TOKEN_LENGTH) {
    return {
      webhookId,
      token: null,
      problem: `the token's service part is too long (over ${MAX_SERVICE_TOKEN_LENGTH})`,
    };
  }
  return { webhookId, token, problem: null };
}

/**
 * The `Webhook` header lines of a request (`headersDistinct`, else `rawHeaders`), or of a plain header record such
 * as a framework hands over (`{ webhook: 'id, token' }` or `{ Webhook: ['id', 'token'] }`, any letter case).
 */
export function webhookLinesOf(source: IncomingMessage | Record<string, unknown>): string[] {
  const req = source as IncomingMessage & { headersDistinct?: Record<string, string[] | undefined> };
  if (req.headersDistinct) return req.headersDistinct['webhook'] ?? [];
  if (Array.isArray(req.rawHeaders)) {
    const out: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i].toLowerCase() === 'webhook') out.push(req.rawHeaders[i + 1]);
    }
    return out;
  }
  const out: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (name.toLowerCase() !== 'webhook') continue;
    for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'string') out.push(v);
  }
  return out;
}

function decodeToken(line: string): string | null {
  if (line.length % 4 !== 0 || !BASE64.test(line)) return null;
  const buf = Buffer.from(line, 'base64');
  if (buf.toString('base64') !== line) return null;
  const text = buf.toString('utf8');
  // A webhook id that happens to be valid base64 decodes to binary noise, not printable `merchant:service`.
  if (!text.includes(':')) return null;
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    if (c < 0x20 || c === 0x7f || c === 0xfffd) return null;
  }
  return text;
}

/** Equal-length digests, so the comparison takes the same time whatever the inputs. */
function constantTimeEquals(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The checks of a delivery's `Webhook` token (spec §6) that need no call to the service: a line carrying
 * `merchant:service`, and the merchant part against the merchant token ({@link WEBHOOK_MERCHANT_TOKEN_SOURCE} when
 * provided, else `webhooks.merchantToken`). No token ever reaches a log line or a reason.
 */
@Injectable()
export class WebhookTokenService {
  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Optional()
    @Inject(WEBHOOK_MERCHANT_TOKEN_SOURCE)
    private readonly merchantSource?: WebhookMerchantTokenSource | null,
  ) {}

  /**
   * A `Webhook` line carrying `merchant:service` (401 without one), and the merchant part against the configured
   * merchant token when there is one (401 when it differs; 503 when the token source cannot be read now).
   */
  async checkLocally(
    source: IncomingMessage | Record<string, unknown>,
  ): Promise<
    | { ok: true; webhookId: string | null }
    | { ok: false; status: 401 | 503; message: string; retryAfterSeconds?: number }
  > {
    const lines = readWebhookHeaderLines(webhookLinesOf(source));
    const refuse = (message: string) => ({ ok: false as const, status: 401 as const, message });
    if (!lines.token) return refuse(lines.problem ?? 'no token');
    let expected: string | null;
    try {
      expected = this.merchantSource ? await this.merchantSource.merchantToken() : this.options.merchantToken;
    } catch {
      const message = 'the merchant token could not be read now; try again later';
      return { ok: false, status: 503, message, retryAfterSeconds: RETRY_AFTER_SECONDS };
    }
    if (expected !== null) {
      if (lines.token.merchant === '') {
        if (!this.options.allowEmptyMerchantPart) return refuse('the token has an empty merchant part');
      } else if (!constantTimeEquals(lines.token.merchant, expected)) {
        return refuse('the merchant part of the token does not match');
      }
    }
    return { ok: true, webhookId: lines.webhookId };
  }
}
