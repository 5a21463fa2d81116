import { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import type { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import { IsNull, type Repository } from 'typeorm';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from './events';
import type { Adoption } from './ports';

/**
 * How an invoice was matched to a record: `number`, the record holds its number (the service's answer to our own
 * request); `lookup`, the identity lookup ({@link InvoiceIdentity.findOurs}); `referrer`, by its referrer alone (its
 * payment id still to be asked of the service).
 */
type MatchedBy = 'number' | 'lookup' | 'referrer';

/** Verdicts remembered per instance (an invoice's referrer, payment id and amount never change). */
const MAX_REMEMBERED = 10_000;

/**
 * "Ours means ours": the one place that decides whether an invoice found at the service is a record's invoice.
 *
 * An invoice is the record's only if its identity is what the module sent for that attempt: the same `referrer`,
 * the same `payment.id`, and the same amount (the gross; an invoice whose shape carries none is not compared on
 * it). The invoice shapes (§2.1, §2.2) carry neither `payment.id` nor the customer's document (`customer` holds
 * only the service's consumer id), so the payment id is what the service lists the invoice under (the lookup by
 * referrer with the `paymentId` filter, A7), and the customer is not compared. An invoice matched by the number the
 * record holds is the record's as long as the referrer agrees (the service gave that number to the module's own
 * request; its gross may differ, which `amountMismatch` flags).
 *
 * Anything else is left alone by every caller (never canceled, refunded, adopted or applied to the order) and
 * raises a `foreign_invoice` alert, once per invoice and record in this instance.
 */
export class InvoiceIdentity {
  private readonly logger = new Logger('InvoiceIdentity');
  /** "Not ours" verdicts, per way of matching, invoice and record. */
  private readonly foreign = new Map<string, string>();
  /** Invoice and record pairs alerted already (with what was said). */
  private readonly alerted = new Map<string, string>();

  constructor(
    private readonly gateway: Pick<GatewayClient, 'findInvoiceByReferrer'>,
    private readonly events: EventEmitter2 | null,
  ) {}

  /**
   * Why `invoice` is not `record`'s invoice, or `null` when it is (see the class notes); a `referrer` match asks
   * the service once. A "not ours" verdict raises the alert. Throws when the service could not be asked.
   */
  async whyNotOurs(invoice: Invoice, record: InvoiceRecord, matchedBy: MatchedBy): Promise<string | null> {
    // Per way of matching: a verdict by referrer never decides a later match by the number the record holds.
    const key = `${matchedBy}\u0000${invoice.id}\u0000${record.id}`;
    const known = this.foreign.get(key);
    if (known !== undefined) return known;
    const why = await this.verdict(invoice, record, matchedBy);
    if (why !== null) {
      remember(this.foreign, key, why);
      this.leftAlone(invoice, record, why);
    }
    return why;
  }

  /**
   * The record's invoice at the service by its identity (the identity lookup: referrer and payment id sent, the
   * amount compared), or `null`: none there, or only another's (alerted, never returned).
   */
  async findOurs(record: InvoiceRecord): Promise<Invoice | null> {
    const found = await this.gateway.findInvoiceByReferrer(record.referrer, {
      // The `payment.id` sent at creation is the record's order id (the attempt's claim writes one from the other).
      paymentId: record.orderId,
    });
    if (!found) return null;
    return (await this.whyNotOurs(found, record, 'lookup')) === null ? found : null;
  }

  private async verdict(
    invoice: Invoice,
    record: InvoiceRecord,
    matchedBy: MatchedBy,
  ): Promise<string | null> {
    const named = `invoice ${invoice.id} (referrer ${invoice.referrer ?? 'none'})`;
    const theirs = `is not order ${record.orderId}'s (record ${record.id})`;
    if (invoice.referrer !== record.referrer) {
      // A number the record holds, in an answer without a referrer (the cancellation's legacy shape): its own.
      if (matchedBy === 'number' && invoice.referrer === null) return null;
      return `${named} ${theirs}: the module sent referrer ${record.referrer}`;
    }
    if (matchedBy === 'number') return null;
    const gross = invoice.amounts.grossCents;
    if (gross !== null && gross !== record.amountCents) {
      return `${named} ${theirs}: its amount ${centsToDecimalString(gross)} is not the ${centsToDecimalString(record.amountCents)} sent`;
    }
    if (matchedBy === 'lookup') return null;
    const query = { paymentId: record.orderId, id: invoice.id };
    const listed = await this.gateway.findInvoiceByReferrer(record.referrer, query);
    return listed ? null : `${named} ${theirs}: the service does not list it under the payment id sent`;
  }

  private leftAlone(invoice: Invoice, record: InvoiceRecord, why: string): void {
    const pair = `${invoice.id}\u0000${record.id}`;
    if (this.alerted.has(pair)) return;
    remember(this.alerted, pair, why);
    const message = `${why}; left alone (not canceled, refunded, adopted or applied to the order)`;
    this.logger.warn(message);
    const alert: InvoicePaymentsAlert = {
      kind: 'foreign_invoice',
      orderId: record.orderId,
      invoiceRecordId: record.id,
      message,
    };
    try {
      this.events?.emit(InvoicePaymentsEvents.Alert, alert);
    } catch (err) {
      this.logger.error(`a listener of ${InvoicePaymentsEvents.Alert} threw: ${String(err)}`);
    }
  }
}

/** Adds to a bounded memory, forgetting the oldest entry when full. */
function remember(memory: Map<string, string>, key: string, value: string): void {
  if (memory.size >= MAX_REMEMBERED) memory.delete(memory.keys().next().value as string);
  memory.set(key, value);
}

/**
 * The record of a service invoice, identity-checked: the record holding its number, else the attempt whose referrer
 * it has while that attempt holds no invoice yet (a second invoice under a referrer has no record). `byReferrer`
 * replaces the referrer step where the checkout adopts late invoices; `foreign` says why a match is not the invoice's.
 */
export async function recordOfInvoice(
  rows: Repository<InvoiceRecord>,
  identity: InvoiceIdentity,
  invoice: Invoice,
  byReferrer?: (invoice: Invoice) => Promise<Adoption>,
): Promise<Adoption> {
  const byNumber = invoice.id ? await rows.findOneBy({ gatewayId: invoice.id }) : null;
  if (byNumber) {
    const foreign = await identity.whyNotOurs(invoice, byNumber, 'number');
    return { record: foreign ? null : byNumber, foreign };
  }
  if (!invoice.referrer) return { record: null, foreign: null };
  if (byReferrer) return byReferrer(invoice);
  const unlinked = await rows.findOneBy({ referrer: invoice.referrer, gatewayId: IsNull() });
  if (!unlinked) return { record: null, foreign: null };
  const foreign = await identity.whyNotOurs(invoice, unlinked, 'referrer');
  return { record: foreign ? null : unlinked, foreign };
}
