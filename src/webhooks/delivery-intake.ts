import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Coalescer } from '../core/queue/poller';
import { countDelivery, traced } from '../core/otel';
import { type HostDelivery, type HostDeliveryOutcome, type HostWebhooks } from '../core/ports';
import { CLOCK, type Clock } from '../domain/clock';
import { clip } from '../domain/text-and-days';
import { GatewayClient } from '../gateway/gateway.client';
import { readDelivery, type WebhookDelivery } from '../gateway/webhook.reader';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { insertEachIgnoring, runReturning } from '../persistence/dialect';
import { InvoiceRecord } from '../persistence/invoice.entity';
import {
  checkBody,
  checkToken,
  DeliveryAdmission,
  type DeliveryInput,
  type IgnoredDelivery,
  type Refusal,
  routable,
  WEBHOOK_MERCHANT_TOKEN_SOURCE,
  type WebhookMerchantTokenSource,
} from './delivery-checks';
import { DeliveryConfirmation, LookupPacer, type StoredDelivery } from './invoice-lookup';
import { WebhookInboxEntry } from './webhook-inbox';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

/** What became of a delivery: stored, acknowledged without being stored, or refused with the route's HTTP status. */
export type IntakeResult =
  { ok: true; stored: StoredDelivery } | { ok: true; ignored: IgnoredDelivery } | Refusal;

/** Deliveries stored in one statement at most (21 parameters each). */
const MAX_ROWS_PER_INSERT = 50;

/**
 * The one way a delivery enters, from any host: its body as the host parsed it (400 when not a JSON object or past a
 * bound, naming the field), token (401; 503 while the merchant token cannot be read), routing (400, 422; a test
 * delivery acknowledged), an invoice held open here ({@link DeliveryAdmission}: else acknowledged, nothing stored;
 * 503 past the budget of deliveries naming invoices by referrer only), then stored. No call to the service: the body
 * is only a trigger. The intake only stores; the {@link WebhookInboxProcessor} takes it from there. The HTTP route
 * takes {@link accept}'s answer; a host that answers with the outcome (Medusa, the provider) calls {@link receive}.
 */
@Injectable()
export class DeliveryIntake implements HostWebhooks {
  /** Deliveries that arrive while an insert is in flight are written together by the next (group commit). */
  private readonly writer = new Coalescer<WebhookInboxEntry, boolean>(
    (entries) => insertEachIgnoring(this.dataSource, WebhookInboxEntry, 'dedupe_key', entries),
    MAX_ROWS_PER_INSERT,
  );

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly processor: WebhookInboxProcessor,
    private readonly confirmation: DeliveryConfirmation,
    private readonly pacer: LookupPacer,
    private readonly admission: DeliveryAdmission,
    private readonly gateway: GatewayClient,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_MERCHANT_TOKEN_SOURCE) private readonly merchantSource: WebhookMerchantTokenSource,
  ) {}

  /** Checks and stores a delivery. */
  accept(input: DeliveryInput): Promise<IntakeResult> {
    return traced('invoice_payments webhook.receive', {}, () => this.take(input)).then(countDelivery);
  }

  /**
   * {@link HostWebhooks}: a delivery a host received, accepted, and awaited through the processor before the answer;
   * the host hears what the service said in the lookup that answered it (never the body), about the record it was
   * applied to.
   */
  async receive(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome> {
    const result = await this.accept({ headers: delivery?.headers ?? {}, body: hostBodyOf(delivery) });
    if (!result.ok) {
      const reason = `${result.status}: ${result.message}`;
      return result.status === 503 ? { kind: 'later', reason } : { kind: 'none', reason };
    }
    if ('ignored' in result) return { kind: 'none', reason: result.ignored.message };
    if (result.stored.state === 'pending') await this.processor.handled(result.stored.id);
    return this.outcomeOf(result.stored.id);
  }

  /** What became of a stored entry, as a host that answers with the outcome tells it. */
  private async outcomeOf(id: string): Promise<HostDeliveryOutcome> {
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id });
    if (entry?.state === 'pending')
      return { kind: 'later', reason: entry.lastError ?? 'the entry is still pending' };
    // The record the inbox applied it to: none for an invoice of no record here, or another's (left alone). A
    // processed entry names its invoice: one naming none is dead-lettered.
    if (entry?.state !== 'processed' || !entry.invoiceRecordId || entry.gatewayId === null) {
      return { kind: 'none', reason: entry?.outcome ?? entry?.lastError ?? 'not applied to any record' };
    }
    const record = await this.dataSource
      .getRepository(InvoiceRecord)
      .findOneBy({ id: entry.invoiceRecordId });
    if (!record) return { kind: 'none', reason: `record ${entry.invoiceRecordId} is gone` };
    const answer = this.confirmation.answerOf(entry.gatewayId, entry.receivedAt);
    // Answered in another process (or forgotten): the record holds what that lookup applied.
    const stored = {
      code: record.statusCode ?? -1,
      paidCents: record.paidCents,
      grossCents: record.grossCents,
    };
    const confirmed = answer?.recordId === record.id ? answer.status : stored;
    return { kind: 'applied', record, confirmed };
  }

  private async take(input: DeliveryInput): Promise<IntakeResult> {
    const body = checkBody(input.body, this.options);
    if (!body.ok) return body;
    const auth = await checkToken(input.headers, this.options, this.merchantSource);
    if (!auth.ok) return auth;
    const delivery = readDelivery(body.value, await this.gateway.wireProfile());
    const routed = routable(delivery);
    if ('ignored' in routed) return { ok: true, ignored: routed.ignored };
    if (!routed.ok) return routed;
    const admitted = await this.admission.admit(routed.invoice);
    if (admitted && 'ignored' in admitted) return { ok: true, ignored: admitted.ignored };
    if (admitted) return admitted;
    // Taken deliveries only: refused ones must not hold the batches back.
    this.processor.arriving();
    // Joined to the entry its invoice's next lookup answers, else stored.
    const stored = await this.pacer.place(routed.invoice.id, {
      join: (entryId) => this.joinWaiting(entryId),
      store: (dueAt) => this.store(delivery, auth.webhookId, dueAt),
    });
    if (stored.state === 'dead') {
      return { ok: false, status: 422, message: stored.problem ?? 'unreadable delivery' };
    }
    if (stored.state === 'pending') this.processor.kick();
    return { ok: true, stored };
  }

  /** Stores a delivery; a pending one is due at `dueAt` (`null`: now, a lookup of its invoice may start at once). */
  async store(
    delivery: WebhookDelivery,
    headerWebhookId: string | null,
    dueAt: Date | null = null,
  ): Promise<StoredDelivery> {
    const state = delivery.invoice ? 'pending' : 'ignored'; // a test delivery names no invoice: nothing to do
    const entry = inboxEntryOf(delivery, headerWebhookId, state, dueAt, this.clock.date());
    const { id, gatewayId } = entry;
    // A duplicate dedupe key is ignored: a retry is answered from its row. Answered once committed.
    const inserted = await this.writer.submit(entry);
    if (inserted) return { id, state, gatewayId, problem: null, duplicate: false, joined: false };
    const found = await this.dataSource
      .getRepository(WebhookInboxEntry)
      .findOneBy({ dedupeKey: entry.dedupeKey });
    if (!found) throw new Error(`webhook inbox: delivery ${entry.dedupeKey} neither stored nor found`);
    const problem = found.state === 'dead' ? found.lastError : null;
    return {
      id: found.id,
      state: found.state,
      gatewayId: found.gatewayId,
      problem,
      duplicate: true,
      joined: false,
    };
  }

  /**
   * Joins a delivery to pending, unclaimed entry `id`: its `received_at` becomes now, so only a later lookup answers
   * it. One statement, as a claim is, so the two never interleave; `false` when the entry was claimed or finished.
   */
  private async joinWaiting(id: string): Promise<boolean> {
    const table = this.dataSource.getMetadata(WebhookInboxEntry).tableName;
    const sql =
      `UPDATE ${table} SET received_at = :now WHERE id = :id AND state = 'pending' ` +
      'AND (locked_until IS NULL OR locked_until <= :now) RETURNING id';
    const rows = await runReturning(this.dataSource, sql, { now: this.clock.date().toISOString(), id });
    return rows.length > 0;
  }
}

/** The body a host passes: its parsed `data` when it has one, else its raw bytes. */
function hostBodyOf(delivery: HostDelivery | null | undefined): unknown {
  const data = delivery?.data;
  const parsed = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (parsed && Object.keys(data).length > 0) return data;
  const raw = delivery?.rawData;
  if (raw === undefined || raw === null || raw === '') return data ?? null;
  return Buffer.isBuffer(raw) ? raw : String(raw);
}

/** A taken delivery's new row in `state`, its texts clipped to their columns; a pending one due at `dueAt` or now. */
function inboxEntryOf(
  delivery: WebhookDelivery,
  headerWebhookId: string | null,
  state: 'pending' | 'ignored',
  dueAt: Date | null,
  now: Date,
): WebhookInboxEntry {
  const invoice = delivery.invoice;
  return Object.assign(new WebhookInboxEntry(), {
    id: randomUUID(),
    dedupeKey: delivery.dedupeKey,
    event: clip(delivery.event, 64),
    deliveryId: clip(delivery.deliveryId, 128),
    webhookId: clip(delivery.webhookId ?? headerWebhookId, 128),
    gatewayId: clip(invoice?.id ?? null, 128),
    referrer: clip(invoice?.referrer ?? null, 160),
    statusCode: invoice?.statusCode ?? null,
    sentAt: clip(delivery.sentAt, 32),
    payload: JSON.stringify(delivery.payload ?? {}),
    state,
    attempts: 0,
    nextAttemptAt: state === 'pending' ? (dueAt ?? now) : null,
    // Due later: waiting for its invoice's turn to be looked up.
    waitingFor: state === 'pending' && dueAt ? 'lookup' : null,
    lockedUntil: null,
    lastError: null,
    outcome: state === 'ignored' ? 'test delivery without an invoice' : null,
    invoiceRecordId: null,
    receivedAt: now,
    processedAt: state === 'pending' ? null : now,
  });
}
