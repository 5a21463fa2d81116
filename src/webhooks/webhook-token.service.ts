import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { WEBHOOK_MERCHANT_TOKEN_SOURCE, WEBHOOK_TOKEN_VALIDATOR, WEBHOOKS_OPTIONS } from './constants';
import { ValidationBudget } from './validation-budget';
import type { ResolvedWebhooksOptions, WebhookMerchantTokenSource, WebhookTokenValidator } from './types';

/** The two `Webhook` header lines of a delivery, told apart (A13). */
export interface WebhookHeaderLines {
  /** The line that is not the token: the webhook identifier. */
  webhookId: string | null;
  /** The decoded token, or `null` when no line decodes to `merchant:service`. */
  token: { merchant: string; service: string } | null;
  /** Why no usable token was found. */
  problem: string | null;
}

/**
 * Outcome of authenticating a delivery: `401` forged or invalid, `503` the service could not be asked (or the
 * budget of validations for new tokens is spent: `retryAfterSeconds` says when to come back).
 */
export type WebhookAuthResult =
  | { ok: true; webhookId: string | null }
  | { ok: false; status: 401 | 503; reason: string; retryAfterSeconds?: number };

/** A token's validation was not even asked for: the window's budget for unseen tokens is spent. */
class ValidationBudgetSpent extends Error {
  readonly kind = 'budget';
  constructor(
    readonly retryAfterMs: number,
    scope: 'source' | 'global',
  ) {
    super(`too many new webhook tokens to validate now${scope === 'source' ? ' from this address' : ''}`);
  }
}

/** Tokens the service confirmed that are remembered past their cache (validated again without the budget). */
const MAX_CONFIRMED = 256;

/** Where a delivery came from, for the per-source budget: Express' `req.ip` (honours `trust proxy`), else the peer. */
export function sourceAddressOf(source: IncomingMessage | Record<string, unknown>): string {
  const req = source as IncomingMessage & { ip?: unknown };
  if (typeof req.ip === 'string' && req.ip) return req.ip;
  const peer = (req as { socket?: { remoteAddress?: unknown } }).socket?.remoteAddress;
  return typeof peer === 'string' && peer ? peer : 'unknown';
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Tells the `Webhook` header lines apart. Node joins repeated headers with ", " in `req.headers`, so pass the lines
 * as received (see {@link webhookLinesOf}); a line that was joined anyway is split again (base64 and webhook ids
 * have no commas). The token line is the one that is strict base64 of a text with a colon; order does not matter.
 * The token splits at its first colon: `merchant` (possibly empty) and `service`.
 */
/**
 * Longest service token sent to the service for validation: the service takes at most 512 characters (A13, what
 * the sandbox enforces). A longer one is refused here (401) rather than sent and answered 422, which read as "the
 * service cannot validate now" (503) and spent the validation budget.
 */
export const MAX_SERVICE_TOKEN_LENGTH = 512;

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
 * Authenticates webhook deliveries as spec §6 says: the merchant part against the merchant token (from
 * {@link WEBHOOK_MERCHANT_TOKEN_SOURCE} when provided, the admin settings in the root module, else
 * `webhooks.merchantToken`), the
 * service token with the service's validation operation (§4.7). Successful validations are cached for
 * `tokenCacheTtlMs` (the service token is per webhook and stable, A13), refusals for `rejectedTokenCacheTtlMs`,
 * and simultaneous checks of one token share one call, so a burst of deliveries costs one validation.
 * No token ever reaches a log line or a reason.
 */
@Injectable()
export class WebhookTokenService {
  private readonly logger = new Logger(WebhookTokenService.name);
  private readonly verdicts = new Map<string, { valid: boolean; until: number }>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  /** Hashes of tokens the service confirmed (bounded, oldest forgotten first). */
  private readonly confirmed = new Set<string>();
  private readonly budget: ValidationBudget;
  private budgetWarned = 0;

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    @Inject(WEBHOOK_TOKEN_VALIDATOR) private readonly validator: WebhookTokenValidator,
    @Optional()
    @Inject(WEBHOOK_MERCHANT_TOKEN_SOURCE)
    private readonly merchantSource?: WebhookMerchantTokenSource | null,
  ) {
    this.budget = new ValidationBudget(
      options.newTokenValidationsPerSource,
      options.newTokenValidationsPerWindow,
      options.newTokenWindowMs,
    );
  }

  /**
   * The checks of a delivery's token that need no call: a `Webhook` line carrying `merchant:service` (401 without
   * one), and the merchant part against the configured merchant token when there is one (401 when it differs; 503
   * when the token source cannot be read now). `trusted`: the merchant part matched, its sender knows the secret.
   * What the intake relies on: the service's validation is not asked there (see docs/webhooks.md).
   */
  async checkLocally(
    source: IncomingMessage | Record<string, unknown>,
  ): Promise<
    | { ok: true; webhookId: string | null; serviceToken: string; trusted: boolean }
    | { ok: false; status: 401 | 503; reason: string }
  > {
    const lines = readWebhookHeaderLines(webhookLinesOf(source));
    if (!lines.token) return { ok: false, status: 401, reason: lines.problem ?? 'no token' };
    let expected: string | null;
    try {
      expected = this.merchantSource ? await this.merchantSource.merchantToken() : this.options.merchantToken;
    } catch {
      return { ok: false, status: 503, reason: 'the merchant token could not be read now; try again later' };
    }
    let trusted = false;
    if (expected !== null) {
      if (lines.token.merchant === '') {
        if (!this.options.allowEmptyMerchantPart) {
          return { ok: false, status: 401, reason: 'the token has an empty merchant part' };
        }
      } else if (!constantTimeEquals(lines.token.merchant, expected)) {
        return { ok: false, status: 401, reason: 'the merchant part of the token does not match' };
      } else {
        trusted = true;
      }
    }
    return { ok: true, webhookId: lines.webhookId, serviceToken: lines.token.service, trusted };
  }

  /**
   * Authenticates a delivery from its headers: the request itself, or a plain header record (what a framework such
   * as Medusa hands a payment provider's `getWebhookActionAndData`): {@link checkLocally}, then the service token
   * validated by the service (§4.7) within the validation budget.
   */
  async authenticate(source: IncomingMessage | Record<string, unknown>): Promise<WebhookAuthResult> {
    const local = await this.checkLocally(source);
    if (!local.ok) return local;
    // A sender holding the configured merchant token is no anonymous caller: its validation spends no budget.
    const trusted = local.trusted;
    let valid: boolean;
    try {
      // The address is worked out only when a validation would spend its budget (Express' `req.ip` costs).
      valid = await this.isValidServiceToken(local.serviceToken, {
        source: () => sourceAddressOf(source),
        trusted,
      });
    } catch (err) {
      if (err instanceof ValidationBudgetSpent) {
        const retryAfterSeconds = Math.max(1, Math.ceil(err.retryAfterMs / 1000));
        return { ok: false, status: 503, reason: err.message, retryAfterSeconds };
      }
      const kind = (err as { kind?: unknown })?.kind;
      this.logger.warn(`webhook token validation unreachable (${typeof kind === 'string' ? kind : 'error'})`);
      return { ok: false, status: 503, reason: 'the token could not be validated now; try again later' };
    }
    if (!valid) return { ok: false, status: 401, reason: 'the service does not recognize the token' };
    return { ok: true, webhookId: local.webhookId };
  }

  /**
   * Whether the service confirms the token, from the cache when it can. Throws when the service is unreachable, or
   * when the validation budget of `from.source` (or the global one) is spent. A token the service confirmed before
   * (its cache entry expired) and a `trusted` sender (the configured merchant token matched) never spend the budget.
   */
  async isValidServiceToken(
    serviceToken: string,
    from: { source?: string | (() => string); trusted?: boolean } = {},
  ): Promise<boolean> {
    const key = createHash('sha256').update(serviceToken, 'utf8').digest('hex');
    const cached = this.verdicts.get(key);
    if (cached && cached.until > Date.now()) return cached.valid;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    if (!from.trusted && !this.confirmed.has(key)) {
      this.spendBudget((typeof from.source === 'function' ? from.source() : from.source) ?? 'unknown');
    }
    const call = this.validator
      .validateWebhookToken(serviceToken)
      .then((valid) => {
        const ttl = valid ? this.options.tokenCacheTtlMs : this.options.rejectedTokenCacheTtlMs;
        if (ttl > 0) this.remember(key, valid, ttl);
        if (valid) this.confirm(key);
        else this.confirmed.delete(key);
        return valid;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, call);
    return this.withinDeadline(call);
  }

  /**
   * The answer, or a failure after `validationTimeoutMs`: the sender then gets a 503 while it still waits, instead
   * of timing out on a slow validation. The call itself goes on and its verdict is still cached.
   */
  private withinDeadline(call: Promise<boolean>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error('token validation timed out'), { kind: 'timeout' })),
        this.options.validationTimeoutMs,
      );
      timer.unref();
    });
    call.catch(() => undefined); // a late failure after the deadline must not go unhandled
    return Promise.race([call, deadline]).finally(() => clearTimeout(timer));
  }

  /**
   * Counts one validation call for a token never confirmed: past the source's or the global share of the window,
   * throws instead, so forged tokens cost the service a bounded number of calls and one source cannot spend it all.
   */
  private spendBudget(source: string): void {
    const refused = this.budget.spend(source);
    if (!refused) return;
    const now = Date.now();
    if (refused.scope === 'global' && now - this.budgetWarned >= this.options.newTokenWindowMs) {
      this.budgetWarned = now;
      this.logger.warn(
        `more than ${this.options.newTokenValidationsPerWindow} new webhook tokens in ${this.options.newTokenWindowMs} ms; ` +
          'refusing new tokens (503) until the window passes',
      );
    }
    throw new ValidationBudgetSpent(refused.retryAfterMs, refused.scope);
  }

  /** Remembers a confirmed token (bounded: the oldest is forgotten first). */
  private confirm(key: string): void {
    this.confirmed.delete(key);
    this.confirmed.add(key);
    if (this.confirmed.size > MAX_CONFIRMED)
      this.confirmed.delete(this.confirmed.values().next().value as string);
  }

  private remember(key: string, valid: boolean, ttl: number): void {
    const now = Date.now();
    if (this.verdicts.size >= 1000) {
      for (const [k, v] of this.verdicts) if (v.until <= now) this.verdicts.delete(k);
      // Still full of live refusals (someone sprays forged tokens): forget those rather than grow.
      if (this.verdicts.size >= 1000)
        for (const [k, v] of this.verdicts) if (!v.valid) this.verdicts.delete(k);
    }
    this.verdicts.set(key, { valid, until: now + ttl });
  }
}
