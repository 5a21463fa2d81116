import { CONTESTABLE_CODES, PAYABLE_CODES, PAYMENT_TYPE } from './constants';
import type { Core } from './core';
import { addDays, localDay } from './dates';
import { SandboxError, notFound, stateConflict } from './errors';
import { billet, pixEndToEndId } from './payment-data';
import type { ContestOptions, PaymentMethod, PayOptions, SandboxInvoiceRecord } from './types';

/**
 * How invoices move between status codes outside the merchant's own operations: the customer pays, the due
 * date passes, the card is processed, a dispute is opened, a bank slip refund completes. Every change is saved
 * and delivered as `invoice.update` (A13).
 */
export class Lifecycle {
  constructor(private readonly core: Core) {}

  /** Sets the code, saves, and emits `invoice.update`; `mutate` runs first on the same record. */
  transition(rec: SandboxInvoiceRecord, code: number, mutate?: (r: SandboxInvoiceRecord) => void): void {
    mutate?.(rec);
    rec.statusCode = code;
    rec.updatedAt = this.core.now().toISOString();
    this.core.store.saveInvoice(rec);
    this.core.emit('invoice.update', rec);
  }

  /** The invoice by `id` or `invoice_id`; 404 otherwise. */
  find(key: string): SandboxInvoiceRecord {
    const rec = this.core.store.findInvoice(key);
    if (!rec) throw notFound(`no invoice ${key}`);
    return rec;
  }

  /** A12: 1 → 2 → 5 (approved) or 12 (denied), one step per `cardProcessingDelayMs`. */
  scheduleCardProcessing(id: string): void {
    const delay = this.core.cardProcessingDelayMs;
    this.core.timers.after(delay, () => {
      const rec = this.core.store.findInvoice(id);
      // A cancellation or a test control may have moved it meanwhile: then there is nothing to process.
      if (!rec || rec.statusCode !== 1) return;
      this.transition(rec, 2);
      this.core.timers.after(delay, () => {
        const again = this.core.store.findInvoice(id);
        if (again && again.statusCode === 2) this.settle(again, 'card', again.card?.approved ?? true);
      });
    });
  }

  /** The `pay` control. */
  pay(key: string, options: PayOptions = {}): SandboxInvoiceRecord {
    const rec = this.find(key);
    const method = options.method ?? defaultMethod(rec);
    if (!methodsOf(rec).includes(method)) {
      throw new SandboxError(422, 'validation_error', `method ${method} is not available on this invoice`, {
        errors: { method: [`must be one of ${methodsOf(rec).join(', ')}`] },
      });
    }
    if (!PAYABLE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`invoice ${rec.id} cannot be paid in status ${rec.statusCode}`, rec.statusCode);
    }
    const approved = options.approved ?? (method === 'card' ? (rec.card?.approved ?? true) : true);
    if (method === 'card' && rec.statusCode !== 2) this.transition(rec, 2);
    this.settle(rec, method, approved, options.amountCents);
    return rec;
  }

  /**
   * The `overdue` control: the due day passes, 1 → 15. A due day not yet past becomes yesterday (the service's zone),
   * as the invoice would read once its day had really passed: a test then needs no invoice due today, which turns
   * with the hour it runs at.
   */
  overdue(key: string): SandboxInvoiceRecord {
    const rec = this.find(key);
    if (rec.statusCode !== 1) {
      throw stateConflict(`invoice ${rec.id} can become overdue only from status 1`, rec.statusCode);
    }
    const today = localDay(this.core.now(), this.core.timeZone);
    this.transition(rec, 15, (r) => {
      if (r.dueDay >= today) this.moveDueDay(r, addDays(today, -1));
    });
    return rec;
  }

  /** Sets the due day. A slip carries its due date in the barcode: a new date is a new slip. */
  moveDueDay(rec: SandboxInvoiceRecord, day: string): void {
    rec.dueDay = day;
    if (rec.billet) rec.billet = billet(rec.seq, rec.grossCents, day);
  }

  /** The `contest` control: 5 or 8 → 10, listing a mediation or chargeback. */
  contest(key: string, options: ContestOptions = {}): SandboxInvoiceRecord {
    const rec = this.find(key);
    if (!CONTESTABLE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`invoice ${rec.id} can be contested only when paid`, rec.statusCode);
    }
    const kind = options.kind ?? (rec.type === PAYMENT_TYPE.card ? 'chargeback' : 'mediation');
    const seq = this.core.store.next(kind);
    const refunded = rec.refunds.reduce((s, r) => s + r.amountCents, 0);
    this.core.store.saveDispute({
      id: `${kind === 'chargeback' ? 'chb' : 'med'}_${String(seq).padStart(6, '0')}`,
      kind,
      invoiceId: rec.invoiceId,
      status: 'open',
      reason: options.reason ?? (kind === 'chargeback' ? 'fraud' : 'product_not_received'),
      amountCents: (rec.payment.paidCents ?? rec.grossCents) - refunded,
      createdAt: this.core.now().toISOString(),
    });
    this.transition(rec, 10);
    return rec;
  }

  /** The `complete-refund` control: 7 → 8 or 9 once the bank slip refund reaches the customer. */
  completeRefund(key: string): SandboxInvoiceRecord {
    const rec = this.find(key);
    if (rec.statusCode !== 7) {
      throw stateConflict(`invoice ${rec.id} has no refund awaiting completion`, rec.statusCode);
    }
    for (const r of rec.refunds) r.completed = true;
    const refunded = rec.refunds.reduce((s, r) => s + r.amountCents, 0);
    this.transition(rec, refunded >= (rec.payment.paidCents ?? rec.grossCents) ? 9 : 8);
    return rec;
  }

  /** The `status` control: any code, listed or not. */
  setStatus(key: string, code: number): SandboxInvoiceRecord {
    const rec = this.find(key);
    this.transition(rec, code, (r) => {
      if (code === 5 && r.payment.paidCents === null) this.markPaid(r, defaultMethod(r));
    });
    return rec;
  }

  /** Moves open invoices whose due day has passed to 15; answers how many moved. */
  sweepOverdue(): number {
    const today = localDay(this.core.now(), this.core.timeZone);
    let moved = 0;
    for (const rec of this.core.store.invoices.values()) {
      if (rec.statusCode === 1 && rec.type !== PAYMENT_TYPE.card && rec.dueDay < today) {
        this.transition(rec, 15);
        moved++;
      }
    }
    return moved;
  }

  private settle(
    rec: SandboxInvoiceRecord,
    method: PaymentMethod,
    approved: boolean,
    paidCents?: number,
  ): void {
    if (!approved) return this.transition(rec, method === 'card' ? 12 : 16);
    this.transition(rec, 5, (r) => this.markPaid(r, method, paidCents));
  }

  private markPaid(rec: SandboxInvoiceRecord, method: PaymentMethod, paidCents = rec.grossCents): void {
    const now = this.core.now();
    rec.payment = { method, paidCents, paidAt: now.toISOString() };
    if (method === 'pix' && rec.pix) {
      rec.pix.status = 'paid';
      rec.pix.endToEndId = pixEndToEndId(now);
    }
  }
}

function methodsOf(rec: SandboxInvoiceRecord): PaymentMethod[] {
  if (rec.type === PAYMENT_TYPE.card) return ['card'];
  return rec.billet ? ['billet', 'pix'] : ['pix'];
}

function defaultMethod(rec: SandboxInvoiceRecord): PaymentMethod {
  return methodsOf(rec)[0];
}
