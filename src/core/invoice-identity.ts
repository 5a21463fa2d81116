import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { LRUCache } from 'lru-cache';
import { IsNull, type Repository } from 'typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { centsToDecimalString } from '../gateway/money';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { raiseAlert } from './events';
import type { Adoption } from './ports';

/** `number`: the record holds it; `lookup`: {@link InvoiceIdentity.findOurs}; `referrer`: payment id still unasked. */
type MatchedBy = 'number' | 'lookup' | 'referrer';

/**
 * "Ours means ours" (docs/webhooks.md): an invoice is a record's only with the referrer, payment id (the lookup's
 * filter, A7: the shapes do not carry it) and gross the module sent; by the number the record holds, the referrer
 * alone. Anything else is left alone by every caller and alerted once per invoice and record: one instance per
 * module (the status module's), shared by the checkout, the webhooks and the reconciliation.
 */
@Injectable()
export class InvoiceIdentity {
  private readonly logger = new Logger('InvoiceIdentity');
  /** Verdicts kept, 10,000 at most (an invoice's referrer, payment id and amount never change). */
  private readonly foreign = new LRUCache<string, string>({ max: 10_000 });
  private readonly alerted = new LRUCache<string, string>({ max: 10_000 });

  constructor(
    @Inject(GatewayClient) private readonly gateway: Pick<GatewayClient, 'findInvoiceByReferrer'>,
    private readonly events: EventEmitter2,
  ) {}

  /** Why `invoice` is not `record`'s, or `null`; throws when the service could not be asked. */
  async whyNotOurs(invoice: Invoice, record: InvoiceRecord, matchedBy: MatchedBy): Promise<string | null> {
    // Per way of matching: a verdict by referrer never decides a later match by the number the record holds.
    const key = `${matchedBy}\u0000${invoice.id}\u0000${record.id}`;
    const known = this.foreign.get(key);
    if (known !== undefined) return known;
    let why = this.fieldsVerdict(invoice, record, matchedBy);
    // What the service's list says now may change (a list behind its writes): only its fields' verdicts are kept.
    if (why === undefined) {
      const query = { paymentId: record.orderId, id: invoice.id };
      const listed = await this.gateway.findInvoiceByReferrer(record.referrer, query);
      const unlisted = 'the service does not list it under the payment id sent';
      why = listed ? null : notOurs(invoice, record, unlisted);
    } else if (why !== null) this.foreign.set(key, why);
    if (why !== null) this.leftAlone(invoice, record, why);
    return why;
  }

  /** The record's invoice at the service by its identity, or `null` (none, or only another's). */
  async findOurs(record: InvoiceRecord): Promise<Invoice | null> {
    const found = await this.gateway.findInvoiceByReferrer(record.referrer, {
      // The `payment.id` sent at creation is the record's order id (the attempt's claim writes one from the other).
      paymentId: record.orderId,
    });
    if (!found) return null;
    return (await this.whyNotOurs(found, record, 'lookup')) === null ? found : null;
  }

  /** The verdict of the invoice's own fields, or `undefined` when only the service's list can tell. */
  private fieldsVerdict(
    invoice: Invoice,
    record: InvoiceRecord,
    matchedBy: MatchedBy,
  ): string | null | undefined {
    // `findInvoiceById` also answers by `invoice_id`: another invoice, even without a referrer.
    if (matchedBy === 'number' && invoice.id !== record.gatewayId)
      return notOurs(invoice, record, `the record holds invoice ${record.gatewayId}`);
    if (invoice.referrer !== record.referrer) {
      // A number the record holds, in an answer without a referrer (the cancellation's legacy shape): its own.
      if (matchedBy === 'number' && invoice.referrer === null) return null;
      return notOurs(invoice, record, `the module sent referrer ${record.referrer}`);
    }
    if (matchedBy === 'number') return null;
    const gross = invoice.amounts.grossCents;
    if (gross !== null && gross !== record.amountCents) {
      const sent = centsToDecimalString(record.amountCents);
      return notOurs(invoice, record, `its amount ${centsToDecimalString(gross)} is not the ${sent} sent`);
    }
    return matchedBy === 'lookup' ? null : undefined;
  }

  private leftAlone(invoice: Invoice, record: InvoiceRecord, why: string): void {
    const pair = `${invoice.id}\u0000${record.id}`;
    if (this.alerted.has(pair)) return;
    this.alerted.set(pair, why);
    const message = `${why}; left alone (not canceled, refunded, adopted or applied to the order)`;
    const alert = {
      kind: 'foreign_invoice' as const,
      orderId: record.orderId,
      invoiceRecordId: record.id,
      message,
    };
    raiseAlert(this.events, this.logger, alert, 'warn');
  }
}

/** Why `invoice` is not `record`'s, worded for the log and the alert. */
function notOurs(invoice: Invoice, record: InvoiceRecord, reason: string): string {
  const named = `invoice ${invoice.id} (referrer ${invoice.referrer ?? 'none'})`;
  return `${named} is not order ${record.orderId}'s (record ${record.id}): ${reason}`;
}

/**
 * The record of a service invoice, identity-checked: the one holding its number, else the attempt with its referrer
 * and no invoice yet. `byReferrer` replaces that step where the checkout adopts late invoices.
 */
export async function recordOfInvoice(
  rows: Repository<InvoiceRecord>,
  identity: InvoiceIdentity,
  invoice: Invoice,
  byReferrer?: (invoice: Invoice) => Promise<Adoption>,
): Promise<Adoption> {
  const byNumber = invoice.id ? await rows.findOneBy({ gatewayId: invoice.id }) : null;
  if (!byNumber && invoice.referrer && byReferrer) return byReferrer(invoice);
  const record =
    byNumber ??
    (invoice.referrer ? await rows.findOneBy({ referrer: invoice.referrer, gatewayId: IsNull() }) : null);
  if (!record) return { record: null, foreign: null };
  const foreign = await identity.whyNotOurs(invoice, record, byNumber ? 'number' : 'referrer');
  return { record: foreign ? null : record, foreign };
}
