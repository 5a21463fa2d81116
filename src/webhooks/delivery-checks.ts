import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { InvoicePaymentsEvents } from '../core/events';
import type { PaymentStatusChange } from '../core/ports';
import { CallCeiling } from '../core/queue/poller';
import { CLOCK, type Clock, secondsToWait } from '../domain/clock';
import { openToReports } from '../core/status-report';
import { CONTROL_CHARACTERS, CONTROL_CHARACTERS_PROBLEM, sameSecret } from '../domain/text-and-days';
import { asRecord, exceedsJsonDepth, type JsonRecord, MAX_JSON_DEPTH } from '../gateway/json';
import type { NamedInvoice, WebhookDelivery } from '../gateway/webhook.reader';
import { readWebhookHeaderLines, webhookLinesOf } from '../gateway/webhook.reader';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { InvoiceRecord } from '../persistence/invoice.entity';

/** A delivery as a host received it: its headers and its body, already parsed by the host. */
export interface DeliveryInput {
  /** The request (its distinct header lines are read), or a record of headers as a framework hands them over. */
  headers: IncomingMessage | Record<string, unknown>;
  body: unknown;
}

/** A request refused, with the HTTP status that says why. */
export type Refusal = { ok: false; status: number; message: string; retryAfterSeconds?: number };

/**
 * A well-formed, authenticated delivery the store has no use for, acknowledged (2xx) with nothing stored and no call
 * to the service. `no_open_invoice`: its invoice is one this store holds closed, or none of its own (one reason for
 * both, so a sender learns no more than before of which numbers are this store's); `test_delivery`: the service's
 * synthetic test delivery, which names no invoice.
 */
export interface IgnoredDelivery {
  reason: 'no_open_invoice' | 'test_delivery';
  message: string;
}

function refusal(message: string, status = 400): Refusal {
  return { ok: false, status, message };
}

/** A body whose declared or handed-over size is past `webhooks.bodyLimitBytes`: 413. */
export function tooLarge(bytes: number, options: ResolvedWebhooksOptions): Refusal | null {
  const limit = options.bodyLimitBytes;
  return bytes > limit ? refusal(`body exceeds ${limit} bytes`, 413) : null;
}

/**
 * The body a host handed over, within the bounds: bytes or text (a host that kept the raw body) parsed once, then a
 * JSON object (400), at most `MAX_JSON_DEPTH` deep (400 naming the bound). How many objects it holds is bounded by its
 * size, which the host's parser or `webhooks.bodyLimitBytes` bounds.
 */
export function checkBody(
  body: unknown,
  options: ResolvedWebhooksOptions,
): { ok: true; value: JsonRecord } | Refusal {
  let value = body;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    const refused = tooLarge(Buffer.byteLength(body), options);
    if (refused) return refused;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return refusal('body: malformed JSON');
    }
  }
  const record = asRecord(value);
  if (record === null) return refusal('body: must be a JSON object');
  if (exceedsJsonDepth(record)) return refusal(`body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  return { ok: true, value: record };
}

/** Where the merchant part of the webhook token is read at runtime; `null` when none is configured. */
export interface WebhookMerchantTokenSource {
  merchantToken(): Promise<string | null>;
}

/** Injection token of the {@link WebhookMerchantTokenSource} (the settings service, bound beside it). */
export const WEBHOOK_MERCHANT_TOKEN_SOURCE = Symbol('INVOICE_PAYMENTS_WEBHOOK_MERCHANT_TOKEN_SOURCE');

/** Seconds the service is asked to wait when the merchant token could not be read now. */
const TOKEN_RETRY_AFTER_SECONDS = 30;

/**
 * The checks of a delivery's `Webhook` token that need no call to the service (§6): a `merchant:service` line, its
 * merchant part against the merchant token read now, when there is one. No token reaches a log line or a reason.
 */
export async function checkToken(
  source: IncomingMessage | Record<string, unknown>,
  options: ResolvedWebhooksOptions,
  merchantSource: WebhookMerchantTokenSource,
): Promise<{ ok: true; webhookId: string | null } | Refusal> {
  const lines = readWebhookHeaderLines(webhookLinesOf(source));
  if (!lines.token) return refusal(lines.problem ?? 'no token', 401);
  let expected: string | null;
  try {
    expected = await merchantSource.merchantToken();
  } catch {
    const message = 'the merchant token could not be read now; try again later';
    return { ...refusal(message, 503), retryAfterSeconds: TOKEN_RETRY_AFTER_SECONDS };
  }
  const problem = merchantPartProblem(lines.token.merchant, expected, options.allowEmptyMerchantPart);
  return problem ? refusal(problem, 401) : { ok: true, webhookId: lines.webhookId };
}

/** What is wrong with a token's merchant part (`expected` `null`: none configured, so any); never holds a token. */
function merchantPartProblem(merchant: string, expected: string | null, allowEmpty: boolean): string | null {
  if (expected === null) return null;
  if (merchant === '') return allowEmpty ? null : 'the token has an empty merchant part';
  return sameSecret(merchant, expected) ? null : 'the merchant part of the token does not match';
}

/** The longest text each routing field may hold: its inbox column's width. */
const FIELD_LENGTHS = {
  event: 64,
  delivery_id: 128,
  webhook: 128,
  sent_at: 32,
  'invoice.id': 128,
  'invoice.referrer': 160,
};

/**
 * The invoice a delivery names, or what the intake does instead of storing it: text an inbox row may not keep (400
 * naming the field: PostgreSQL refuses NUL; longer than its column), an invoice that cannot be read (422 naming the
 * field: a sender cannot fill the inbox with bodies naming nothing), or the service's synthetic test delivery, which
 * names no invoice (acknowledged: the service's test of the endpoint succeeds).
 */
export function routable(
  d: WebhookDelivery,
): { ok: true; invoice: NamedInvoice } | { ignored: IgnoredDelivery } | Refusal {
  const texts = { event: d.event, delivery_id: d.deliveryId, webhook: d.webhookId, sent_at: d.sentAt };
  const fields = { ...texts, 'invoice.id': d.invoice?.id, 'invoice.referrer': d.invoice?.referrer };
  for (const [field, value] of Object.entries(fields)) {
    const problem = fieldProblem(value, FIELD_LENGTHS[field as keyof typeof fields]);
    if (problem) return refusal(`body.${field}: ${problem}`);
  }
  if (d.invoice) return { ok: true, invoice: d.invoice };
  if (d.test && d.invoiceError === null) {
    const message = 'a test delivery without an invoice: acknowledged, nothing stored';
    return { ignored: { reason: 'test_delivery', message } };
  }
  return refusal(`${d.invoiceError ?? 'no invoice'}: nothing stored`, 422);
}

/** Why a routing field's text cannot be kept in its column of `maxLength`, or `null`. */
function fieldProblem(value: unknown, maxLength: number): string | null {
  if (typeof value !== 'string') return null;
  if (CONTROL_CHARACTERS.test(value)) return CONTROL_CHARACTERS_PROBLEM;
  return value.length > maxLength ? `longer than ${maxLength} characters` : null;
}

const REMEMBER_MS = 60_000;

/**
 * Decides, from one indexed read and without calling the service, whether a delivery's invoice is worth a lookup
 * (docs/webhook-security.md, "A delivery is a trigger, cheaply"). Invoices found open by number are remembered for a
 * minute (no read); one this process sees close (a change to refunded) is forgotten at once.
 */
@Injectable()
export class DeliveryAdmission implements OnModuleInit, OnModuleDestroy {
  private readonly open = new LRUCache<string, number>({ max: 10_000 });
  private readonly byReferrer: CallCeiling;
  private readonly closed = (change: PaymentStatusChange): void => {
    if (change.gatewayId !== null && !openToReports(change.current.code)) this.open.delete(change.gatewayId);
  };

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(WEBHOOKS_OPTIONS) options: ResolvedWebhooksOptions,
    private readonly events: EventEmitter2,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.byReferrer = new CallCeiling(unknownLookupsPerWindow, () => clock.now(), unknownLookupWindowMs);
  }

  onModuleInit(): void {
    this.events.on(InvoicePaymentsEvents.StatusChanged, this.closed);
  }

  onModuleDestroy(): void {
    this.events.off(InvoicePaymentsEvents.StatusChanged, this.closed);
  }

  /**
   * Taken (`null`): an invoice whose record holds it by number and is open to reports; or one no record holds by
   * number under a referrer a record holds (the delivery won the race against the checkout's commit of the number, or
   * a second invoice under one of our referrers, which the checkout adopts, cancels or raises), within
   * `inbox.unknownLookupsPerWindow` a window since a sender can make up numbers (beyond, 503). Acknowledged and
   * dropped: an invoice whose record is closed (refunded: no report changes it) or that no record names at all (the
   * checkout writes its record, referrer included, before it asks the service to create the invoice).
   */
  async admit(invoice: NamedInvoice): Promise<null | { ignored: IgnoredDelivery } | Refusal> {
    const t = this.clock.now();
    if ((this.open.get(invoice.id) ?? 0) > t) return null;
    const where = [{ gatewayId: invoice.id }, ...(invoice.referrer ? [{ referrer: invoice.referrer }] : [])];
    const records = await this.dataSource
      .getRepository(InvoiceRecord)
      .find({ where, select: { id: true, gatewayId: true, statusCode: true } });
    const own = records.find((r) => r.gatewayId === invoice.id);
    if (own && openToReports(own.statusCode)) {
      this.open.set(invoice.id, t + REMEMBER_MS);
      return null;
    }
    if (own || records.length === 0) return { ignored: notOpen(invoice) };
    if (this.byReferrer.take()) return null;
    const message = `too many deliveries naming invoices by referrer only; invoice ${invoice.id} is taken later`;
    const retryAfterSeconds = secondsToWait(this.byReferrer.msUntilNextWindow());
    return { ...refusal(message, 503), retryAfterSeconds };
  }
}

function notOpen(invoice: NamedInvoice): IgnoredDelivery {
  const named = `invoice ${invoice.id}${invoice.referrer ? ` (referrer ${invoice.referrer})` : ''}`;
  const message = `${named} is no invoice of this store open to changes: acknowledged, nothing stored`;
  return { reason: 'no_open_invoice', message };
}
