import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { exceedsJsonDepth } from '../gateway/payload.reader';
import { WEBHOOKS_OPTIONS } from './constants';
import { KnownInvoices } from './known-invoices';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { boundedBody, parseJsonObject } from './webhook-body';
import { answerOf, type DeliveryAnswer, INTERNAL_ERROR_ANSWER } from './webhook-answer';
import { WebhookInboxProcessor } from './webhook-inbox.processor';
import { StoredDelivery, WebhookInboxService } from './webhook-inbox.service';
import { deliveryTextProblem, readDelivery, type WebhookDelivery } from './webhook-payload';
import type { Invoice } from '../gateway/types';
import { WebhookTokenService } from './webhook-token.service';

/** A delivery as a host received it: its headers and its body. */
export interface DeliveryInput {
  headers: IncomingMessage | Record<string, unknown>;
  /**
   * The request (read within `webhooks.bodyLimitBytes`), the bytes (measured against it), or what the host's JSON
   * parser made of them.
   */
  body: unknown;
}

/**
 * What became of a delivery: stored in the inbox, or refused with the HTTP status the route answers (`unread`: the
 * body itself was refused before it was read as JSON).
 */
export type IntakeResult =
  | { ok: true; stored: StoredDelivery }
  | {
      ok: false;
      status: 400 | 401 | 413 | 415 | 422 | 503;
      message: string;
      retryAfterSeconds?: number;
      unread?: true;
    };

/** Seconds the service is asked to wait before retrying when the merchant token could not be read now. */
const RETRY_AFTER_SECONDS = 30;

/**
 * The one way a webhook delivery enters the module, whichever host received it (the Nest route, the Vendure plugin
 * through that route, the Medusa provider's `getWebhookActionAndData`): the body within its size (413) and depth
 * (400), a JSON object (400), the token's local checks (401: no token line, or a merchant part that differs from the
 * configured one), read with the store's wire profile (400 naming the field), its invoice one this store holds
 * open to changes (422 otherwise, 503 past the budget of deliveries naming an invoice by referrer only: see
 * {@link KnownInvoices}), then stored in the inbox. Only then is it processed, from the inbox, where the service's
 * answer for the invoice is what is applied. No call to the service is made here: the body is only a trigger, so
 * the service's validation of the token would prove nothing that gets applied (docs/webhooks.md).
 */
@Injectable()
export class DeliveryIntake {
  private readonly logger = new Logger(DeliveryIntake.name);
  private readonly known: KnownInvoices;
  /** Per invoice, the write of an entry that will wait for the invoice's next lookup (see {@link storeOrJoin}). */
  private readonly waitingWrites = new Map<string, Promise<StoredDelivery>>();

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly tokens: WebhookTokenService,
    private readonly inbox: WebhookInboxService,
    private readonly processor: WebhookInboxProcessor,
    private readonly gateway: GatewayClient,
    @InjectDataSource() dataSource: DataSource,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.known = new KnownInvoices(dataSource, unknownLookupsPerWindow, unknownLookupWindowMs);
  }

  /**
   * A delivery over HTTP, whichever part of the host took it (the Express route ahead of the parsers, the Nest route
   * otherwise): {@link accept}ed, answered as the route answers. An unexpected failure (the database is down) is
   * logged and answered 500, so the service retries.
   */
  async receive(req: IncomingMessage): Promise<DeliveryAnswer> {
    try {
      return answerOf(await this.accept({ headers: req, body: req }));
    } catch (err) {
      this.logger.error(`webhook delivery not stored: ${err instanceof Error ? err.message : String(err)}`);
      return INTERNAL_ERROR_ANSWER;
    }
  }

  /** Checks and stores a delivery; `wait` processes it before returning (hosts that answer with the outcome). */
  async accept(input: DeliveryInput, wait = false): Promise<IntakeResult> {
    const body = await this.bodyOf(input.body);
    if (!body.ok) return body;
    // Before anything else reads it: nothing downstream walks a body deeper than this.
    if (exceedsJsonDepth(body.value, this.options.maxJsonDepth)) {
      return {
        ok: false,
        status: 400,
        message: `body: nested deeper than ${this.options.maxJsonDepth} levels`,
      };
    }
    // The service's validation of the token would prove only who sent the body, and the body is never applied: the
    // lookup's answer is. So only the checks that need no call.
    const auth = await this.tokens.checkLocally(input.headers);
    if (!auth.ok) {
      if (auth.status === 503) {
        return { ok: false, status: 503, message: auth.reason, retryAfterSeconds: RETRY_AFTER_SECONDS };
      }
      return { ok: false, status: 401, message: auth.reason };
    }
    const delivery = readDelivery(body.value, await this.gateway.wireProfile());
    const problem = deliveryTextProblem(delivery);
    if (problem) return { ok: false, status: 400, message: problem };
    if (!delivery.invoice) {
      // Nothing a lookup could answer: not stored, so a sender cannot fill the inbox with bodies naming nothing.
      const what = delivery.test
        ? 'a test delivery without an invoice'
        : (delivery.invoiceError ?? 'no invoice');
      return { ok: false, status: 422, message: `${what}: nothing stored` };
    }
    const admission = await this.known.admit(delivery.invoice);
    if (!admission.ok) return admission;
    // Taken deliveries only: refused ones must not hold the batches back.
    this.processor.arriving();
    const stored = await this.storeOrJoin(delivery, delivery.invoice, body.value, auth.webhookId);
    if (stored.state === 'dead') {
      return { ok: false, status: 422, message: stored.problem ?? 'unreadable delivery' };
    }
    if (stored.state === 'pending') {
      if (wait) await this.processor.processNow(stored.id, stored.gatewayId);
      else this.processor.kick();
    }
    return { ok: true, stored };
  }

  /**
   * Stores a delivery taken, or joins it to an entry of its invoice already waiting for a lookup that has not
   * started: that lookup answers it too, so a flood naming one invoice adds a few rows a lookup window. An entry
   * stored while the invoice's lookups are spent is due when the next may start, and later deliveries join it; past
   * `MAX_ROWS_PER_LOOKUP` rows before a lookup, they join the newest.
   */
  private async storeOrJoin(
    delivery: WebhookDelivery,
    invoice: Invoice,
    body: Record<string, unknown>,
    webhookId: string | null,
  ): Promise<StoredDelivery> {
    const pacing = this.processor.confirmation.paced;
    const gatewayId = invoice.id;
    // A waiting entry of this invoice being written now: joined once it is.
    await this.waitingWrites.get(gatewayId)?.catch(() => undefined);
    const waiting = pacing.waitingEntry(gatewayId);
    if (waiting !== null) {
      if (await this.inbox.joinWaiting(waiting)) {
        return { id: waiting, duplicate: true, state: 'pending', problem: null, gatewayId };
      }
      pacing.forgetWaiting(gatewayId, waiting);
    }
    const dueAt = pacing.nextLookupAt(gatewayId);
    if (dueAt === null) {
      const stored = await this.inbox.store(delivery, body, webhookId);
      if (!stored.duplicate && stored.state === 'pending') pacing.stored(gatewayId, stored.id);
      return stored;
    }
    const write = this.inbox.store(delivery, body, webhookId, dueAt).then((stored) => {
      if (!stored.duplicate && stored.state === 'pending') pacing.waits(gatewayId, stored.id, dueAt);
      return stored;
    });
    this.waitingWrites.set(gatewayId, write);
    try {
      return await write;
    } finally {
      if (this.waitingWrites.get(gatewayId) === write) this.waitingWrites.delete(gatewayId);
    }
  }

  /** The body within its bound ({@link boundedBody}, the one size check), as a JSON object. */
  private async bodyOf(
    source: unknown,
  ): Promise<
    | { ok: true; value: Record<string, unknown> }
    | { ok: false; status: 400 | 413 | 415; message: string; unread?: true }
  > {
    const read = await boundedBody(source, this.options.bodyLimitBytes);
    if (!read.ok) return { ...read, unread: true };
    if ('body' in read) {
      const parsed = parseJsonObject(read.body);
      return parsed.ok ? parsed : { ok: false, status: 400, message: parsed.message };
    }
    const value = read.parsed;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, status: 400, message: 'body: must be a JSON object' };
    }
    return { ok: true, value: value as Record<string, unknown> };
  }
}
