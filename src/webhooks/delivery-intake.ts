import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Coalescer } from '../core/coalescer';
import { escapeQuery, queryReturning } from '../persistence/typeorm-compat';
import { GatewayClient } from '../gateway/gateway.client';
import type { JsonRecord } from '../gateway/payload.reader';
import { readBoundedJson, type Refusal } from '../core/bounded-json';
import { readDelivery, type WebhookDelivery } from '../gateway/webhook.reader';
import type { HostDelivery, HostDeliveryOutcome, HostWebhooks } from '../core/ports';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { insertEachIgnoring, runStatement } from '../persistence/dialect';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { countDelivery, traced } from '../core/otel';
import { DeliveryAdmission, type IgnoredDelivery } from './delivery-admission';
import {
  checkToken,
  routable,
  WEBHOOK_MERCHANT_TOKEN_SOURCE,
  type WebhookMerchantTokenSource,
} from './delivery-checks';
import { DeliveryConfirmation } from './delivery-confirmation';
import { inboxEntryOf, WebhookInboxEntry } from './webhook-inbox.entity';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

export { WEBHOOK_MERCHANT_TOKEN_SOURCE, type WebhookMerchantTokenSource } from './delivery-checks';

/** A delivery as a host received it: its headers, and its body read once within the intake's bounds. */
export interface DeliveryInput {
  headers: IncomingMessage | Record<string, unknown>;
  body(limit: number, maxDepth: number): Promise<{ ok: true; value: JsonRecord } | Refusal>;
}

/**
 * What became of a delivery: stored in the inbox, acknowledged without being stored (the store has no use for it),
 * or refused with the HTTP status the route answers.
 */
export type IntakeResult =
  { ok: true; stored: StoredDelivery } | { ok: true; ignored: IgnoredDelivery } | Refusal;

/** What storing a delivery did (`duplicate`: a retry or copy of a stored one; `problem`: why a dead one is). */
export type StoredDelivery = Pick<WebhookInboxEntry, 'id' | 'state' | 'gatewayId'> & {
  duplicate: boolean;
  problem: string | null;
};

/** Deliveries stored in one statement at most (20 parameters each). */
const MAX_ROWS_PER_INSERT = 50;

/**
 * The one way a delivery enters, from any host: body (413, 415, 400), token (401; 503 while the merchant token cannot
 * be read), routing (400, 422; a test delivery acknowledged), an invoice held open here ({@link DeliveryAdmission}:
 * else acknowledged, nothing stored; 503 past the budget of deliveries naming invoices by referrer only), then
 * stored. No call to the service: the body is only a trigger. The HTTP route takes {@link accept}'s answer; a host
 * that answers with the outcome (Medusa, the provider) calls {@link settle}.
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
    private readonly admission: DeliveryAdmission,
    private readonly gateway: GatewayClient,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Optional()
    @Inject(WEBHOOK_MERCHANT_TOKEN_SOURCE)
    private readonly merchantSource?: WebhookMerchantTokenSource | null,
  ) {}

  /** Checks and stores a delivery; `wait` processes it before returning (hosts that answer with the outcome). */
  async accept(input: DeliveryInput, wait = false): Promise<IntakeResult> {
    return traced('invoice_payments webhook.receive', {}, () => this.take(input, wait)).then(countDelivery);
  }

  /**
   * {@link HostWebhooks}: a delivery a host received, accepted and processed before the answer; the host hears what
   * the service said in the lookup that answered it (never the body), about the record it was applied to.
   */
  async settle(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome> {
    const body: DeliveryInput['body'] = (limit, depth) => readBoundedJson(bodyOf(delivery), limit, depth);
    const result = await this.accept({ headers: delivery?.headers ?? {}, body }, true);
    if (!result.ok) {
      const reason = `${result.status}: ${result.message}`;
      return result.status === 503 ? { kind: 'later', reason } : { kind: 'none', reason };
    }
    if ('ignored' in result) return { kind: 'none', reason: result.ignored.message };
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id: result.stored.id });
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
    const confirmed =
      answer?.recordId === record.id
        ? answer.status
        : { code: record.statusCode ?? -1, paidCents: record.paidCents, grossCents: record.grossCents };
    return { kind: 'applied', record, confirmed };
  }

  private async take(input: DeliveryInput, wait: boolean): Promise<IntakeResult> {
    const { bodyLimitBytes, maxJsonDepth } = this.options;
    const body = await input.body(bodyLimitBytes, maxJsonDepth);
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
    const stored = await this.storeOrJoin(delivery, routed.invoice.id, auth.webhookId);
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
   * too): a flood naming one invoice adds a few rows a lookup window.
   */
  private storeOrJoin(delivery: WebhookDelivery, gatewayId: string, webhookId: string | null) {
    return this.confirmation.place(gatewayId, {
      join: (entryId) => this.joinWaiting(entryId),
      store: (dueAt) => this.store(delivery, webhookId, dueAt),
    });
  }

  /** Stores a delivery; a pending one is due at `dueAt` (default now: a lookup of its invoice may start at once). */
  async store(
    delivery: WebhookDelivery,
    headerWebhookId: string | null,
    dueAt?: Date,
  ): Promise<StoredDelivery> {
    const state = delivery.invoice ? 'pending' : 'ignored'; // a test delivery names no invoice: nothing to do
    const entry = inboxEntryOf(delivery, headerWebhookId, state, dueAt);
    // A duplicate dedupe key is ignored: a retry is answered from its row. Answered once committed.
    const inserted = await this.writer.submit(entry);
    if (inserted) return { id: entry.id, duplicate: false, state, problem: null, gatewayId: entry.gatewayId };
    const found = await this.dataSource
      .getRepository(WebhookInboxEntry)
      .findOneBy({ dedupeKey: entry.dedupeKey });
    if (!found) throw new Error(`webhook inbox: delivery ${entry.dedupeKey} neither stored nor found`);
    const problem = found.state === 'dead' ? found.lastError : null;
    return { id: found.id, duplicate: true, state: found.state, problem, gatewayId: found.gatewayId };
  }

  /**
   * Joins a delivery to pending, unclaimed entry `id`: its `received_at` becomes now, so only a later lookup answers
   * it. One statement, as a claim is, so the two never interleave; `false` when the entry was claimed or finished.
   */
  async joinWaiting(id: string): Promise<boolean> {
    const table = this.dataSource.getMetadata(WebhookInboxEntry).tableName;
    const [sql, values] = escapeQuery(
      this.dataSource,
      `UPDATE ${table} SET received_at = :now WHERE id = :id AND state = 'pending' ` +
        'AND (locked_until IS NULL OR locked_until <= :now) RETURNING id',
      { now: new Date().toISOString(), id },
    );
    const rows = await runStatement(this.dataSource, (em) => queryReturning(em, sql, values));
    return rows.length > 0;
  }
}

/** The parsed body a host passes, else its raw bytes (read as the route's, within the size limit). */
function bodyOf(delivery: HostDelivery | null | undefined): unknown {
  const data = delivery?.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length > 0)
    return data;
  const raw = delivery?.rawData;
  if (raw === undefined || raw === null || raw === '') return data ?? null;
  return Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
}
