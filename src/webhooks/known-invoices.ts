import { DataSource } from 'typeorm';
import { decideTransition, STATUS_STAGES } from '../core/status-table';
import type { Invoice } from '../gateway/types';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { CallCeiling } from '../reconciliation/call-ceiling';

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

/** What the intake does with a delivery's invoice: take it (a lookup will answer it), or refuse it and why. */
export type Admission =
  { ok: true } | { ok: false; status: 422 | 503; message: string; retryAfterSeconds?: number };

/**
 * Which deliveries may make the module look an invoice up: those naming an invoice this store holds a record of while
 * a report can still change it ({@link openToReports}). By the service's invoice number: taken (the lookups of one
 * invoice are paced, see `LookupPace`). By the referrer the checkout sent, under a number no record holds (the
 * delivery won the race against the checkout's commit of the number, or a second invoice under one of our
 * referrers): taken within `inbox.unknownLookupsPerWindow` a window, since such numbers are as many as a sender
 * makes up; beyond, 503 with `Retry-After` (the service retries; by then the number is usually stored). Naming
 * neither: 422, without a call. One indexed read of `invoice_payments_invoice` per delivery; numbers found open are
 * remembered for a minute (a positive answer only: a record that appears is found at the next delivery).
 */
export class KnownInvoices {
  private readonly open = new Map<string, number>();
  private readonly byReferrer: CallCeiling;

  constructor(
    private readonly dataSource: DataSource,
    referrerOnlyPerWindow: number,
    windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.byReferrer = new CallCeiling(referrerOnlyPerWindow, now, windowMs);
  }

  /** Whether a delivery naming `invoice` is taken (see the class notes); never calls the service. */
  async admit(invoice: Pick<Invoice, 'id' | 'referrer'>): Promise<Admission> {
    const t = this.now();
    const until = this.open.get(invoice.id);
    if (until !== undefined && until > t) return { ok: true };
    const where = [{ gatewayId: invoice.id }, ...(invoice.referrer ? [{ referrer: invoice.referrer }] : [])];
    const records = await this.dataSource
      .getRepository(InvoiceRecord)
      .find({ where, select: { id: true, gatewayId: true, statusCode: true } });
    const open = records.filter((r) => openToReports(r.statusCode));
    if (open.some((r) => r.gatewayId === invoice.id)) {
      this.remember(invoice.id, t);
      return { ok: true };
    }
    if (open.length === 0) {
      return {
        ok: false,
        status: 422,
        message:
          `invoice ${invoice.id}${invoice.referrer ? ` (referrer ${invoice.referrer})` : ''} is no invoice of ` +
          'this store open to changes: nothing stored',
      };
    }
    if (this.byReferrer.take()) return { ok: true };
    return {
      ok: false,
      status: 503,
      message: `too many deliveries naming invoices by referrer only; invoice ${invoice.id} is taken later`,
      retryAfterSeconds: Math.max(1, Math.ceil(this.byReferrer.msUntilNextWindow() / 1000)),
    };
  }

  private remember(gatewayId: string, t: number): void {
    this.open.delete(gatewayId);
    if (this.open.size >= MAX_REMEMBERED) this.open.delete(this.open.keys().next().value as string);
    this.open.set(gatewayId, t + REMEMBER_MS);
  }
}
