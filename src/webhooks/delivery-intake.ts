import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { decideTransition, STATUS_STAGES } from '../core/status-table';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { CallCeiling } from '../reconciliation/call-ceiling';
import { WEBHOOKS_OPTIONS } from './constants';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import {
  answerOf,
  type BodyRefusal,
  type DeliveryAnswer,
  INTERNAL_ERROR_ANSWER,
  readDeliveryBody,
} from './webhook-body';
import { WebhookInboxProcessor } from './webhook-inbox.processor';
import { StoredDelivery, WebhookInboxService } from './webhook-inbox.service';
import { deliveryTextProblem, readDelivery, type WebhookDelivery } from './webhook-payload';
import { WebhookTokenService } from './webhook-token.service';
import { countDelivery, traced } from '../observability/otel';

/** A delivery as a host received it: its headers, and the request, its bytes or what the host's parser made of them. */
interface DeliveryInput {
  headers: IncomingMessage | Record<string, unknown>;
  body: unknown;
}

/** What became of a delivery: stored in the inbox, or refused with the HTTP status the route answers. */
export type IntakeResult =
  | { ok: true; stored: StoredDelivery }
  | (Omit<BodyRefusal, 'status'> & {
      status: BodyRefusal['status'] | 401 | 422 | 503;
      retryAfterSeconds?: number;
    });

/** Invoices remembered as open here at most at once (oldest forgotten first). */
const MAX_REMEMBERED = 10_000;
/** How long an invoice found open here is taken without reading its record again. */
const REMEMBER_MS = 60_000;

/**
 * Whether a report could still change a record at `code`: any status but those no listed code moves on from
 * (refunded, 9). Paid, canceled, denied and the rest stay open to deliveries: a refund, a dispute or money that
 * arrives after a cancellation only ever reaches the store by one.
 */
export function openToReports(code: number | null): boolean {
  return STATUS_STAGES.some((to) => decideTransition(code, to).apply);
}

type Refusal = Extract<IntakeResult, { ok: false }>;

/**
 * The one way a webhook delivery enters the module, whichever host received it (the route, the Vendure plugin
 * through it, Medusa's `getWebhookActionAndData`): the body read once (413, 415, 400), the token's local checks
 * (401), what routing needs read with the store's wire profile (400 naming the field), its invoice one this store
 * holds open to changes ({@link admit}: 422, 503), then stored in the inbox, from which it is processed. No call to
 * the service is made here: the body is only a trigger, so validating the token there would prove nothing applied.
 */
@Injectable()
export class DeliveryIntake {
  private readonly logger = new Logger(DeliveryIntake.name);
  /** Invoice numbers found open here, until when they are taken without a read. */
  private readonly open = new Map<string, number>();
  private readonly byReferrer: CallCeiling;
  /** Per invoice, the write of an entry that will wait for the invoice's next lookup (see {@link storeOrJoin}). */
  private readonly waitingWrites = new Map<string, Promise<StoredDelivery>>();

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly tokens: WebhookTokenService,
    private readonly inbox: WebhookInboxService,
    private readonly processor: WebhookInboxProcessor,
    private readonly gateway: GatewayClient,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    const { unknownLookupsPerWindow, unknownLookupWindowMs } = options.inbox;
    this.byReferrer = new CallCeiling(unknownLookupsPerWindow, Date.now, unknownLookupWindowMs);
  }

  /** A delivery over HTTP, {@link accept}ed; an unexpected failure (database down) is answered 500: retried. */
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
    return traced('invoice_payments webhook.receive', {}, () => this.take(input, wait)).then(countDelivery);
  }

  private async take(input: DeliveryInput, wait: boolean): Promise<IntakeResult> {
    const { bodyLimitBytes, maxJsonDepth } = this.options;
    const body = await readDeliveryBody(input.body, bodyLimitBytes, maxJsonDepth);
    if (!body.ok) return body;
    const auth = await this.tokens.checkLocally(input.headers);
    if (!auth.ok) return auth;
    // Only what routing needs is read of the body: the service's answer to a lookup is what gets applied.
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
    const refused = await this.admit(delivery.invoice);
    if (refused) return refused;
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
   * Stores a delivery, or joins it to an entry of its invoice waiting for a lookup not started yet (which answers it
   * too): a flood naming one invoice adds a few rows a lookup window. An entry stored while the invoice's lookups are
   * spent is due when the next may start; past `MAX_ROWS_PER_LOOKUP` rows before a lookup, deliveries join the newest.
   */
  private async storeOrJoin(
    delivery: WebhookDelivery,
    invoice: { id: string },
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

  /**
   * Refuses a delivery whose invoice may not make the module look it up, else `null`. Taken: those naming an invoice
   * this store holds a record of while a report can still change it ({@link openToReports}), by number (one
   * indexed read; numbers found open are remembered for a minute), or by the referrer the checkout sent under a
   * number no record holds (the delivery won the race against the checkout's commit, or a second invoice under one
   * of our referrers) within `inbox.unknownLookupsPerWindow` a window, since such numbers are as many as a sender
   * makes up; beyond, 503 with `Retry-After`. Naming neither: 422. Never calls the service.
   */
  private async admit(invoice: { id: string; referrer: string | null }): Promise<Refusal | null> {
    const t = Date.now();
    if ((this.open.get(invoice.id) ?? 0) > t) return null;
    const where = [{ gatewayId: invoice.id }, ...(invoice.referrer ? [{ referrer: invoice.referrer }] : [])];
    const records = await this.dataSource
      .getRepository(InvoiceRecord)
      .find({ where, select: { id: true, gatewayId: true, statusCode: true } });
    const open = records.filter((r) => openToReports(r.statusCode));
    if (open.some((r) => r.gatewayId === invoice.id)) {
      this.open.delete(invoice.id);
      if (this.open.size >= MAX_REMEMBERED) this.open.delete(this.open.keys().next().value as string);
      this.open.set(invoice.id, t + REMEMBER_MS);
      return null;
    }
    if (open.length === 0) {
      const named = `invoice ${invoice.id}${invoice.referrer ? ` (referrer ${invoice.referrer})` : ''}`;
      return {
        ok: false,
        status: 422,
        message: `${named} is no invoice of this store open to changes: nothing stored`,
      };
    }
    if (this.byReferrer.take()) return null;
    return {
      ok: false,
      status: 503,
      message: `too many deliveries naming invoices by referrer only; invoice ${invoice.id} is taken later`,
      retryAfterSeconds: Math.max(1, Math.ceil(this.byReferrer.msUntilNextWindow() / 1000)),
    };
  }
}
