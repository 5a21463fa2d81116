import { randomBytes, randomUUID } from 'node:crypto';
import {
  CANCELLABLE_CODES,
  DEFAULT_DUE_DAYS,
  DUE_DATE_CODES,
  FEES,
  PAYMENT_TYPE,
  REFUNDABLE_CODES,
  TRACKABLE_CODES,
} from './constants';
import type { Core } from './core';
import { defaultDueDay, lineDiscountCents, parseCreate, type CreateInput } from './create-request';
import { localDay } from './dates';
import { invalidField, notFound, stateConflict } from './errors';
import type { JsonObject } from './http';
import type { Lifecycle } from './lifecycle';
import { shareOf, toDecimalString } from './money';
import { billet, pixEndToEndId, pixPayload } from './payment-data';
import type { ProductDiscountRule, SandboxInvoiceRecord } from './types';
import { FieldCheck } from './validation';

/** Largest invoice total: ten digits of cents, what a bank slip can carry. */
const MAX_TOTAL_CENTS = 9_999_999_999;

/**
 * The merchant's invoice operations (§4.2–4.6) and their state rules (§3, §8, A8, A9, A11). Each answers the
 * stored record; rendering into a response shape is the router's job.
 */
export class Invoices {
  constructor(
    private readonly core: Core,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** POST /invoices: a new invoice in status 1. */
  create(body: JsonObject): SandboxInvoiceRecord {
    const now = this.core.now();
    const cardToken = (t: string) => this.core.store.cardTokens.get(t);
    const input = parseCreate(body, now, this.core.timeZone, cardToken, this.core.productDiscount);
    const { grossCents, discountCents } = totals(input, this.core.productDiscount);
    const store = this.core.store;
    const seq = store.next('invoice');
    const id = store.nextInvoiceNumber();
    const dueDay = input.dueDay ?? defaultDueDay(now, this.core.timeZone, DEFAULT_DUE_DAYS);
    const at = now.toISOString();
    const rec: SandboxInvoiceRecord = {
      seq,
      id,
      uuid: randomUUID(),
      invoiceId: randomBytes(16).toString('hex').toUpperCase(),
      token: randomBytes(20).toString('hex'),
      referrer: input.referrer ?? input.paymentId ?? '',
      paymentId: input.paymentId,
      type: input.type,
      productType: input.productType,
      installments: input.installments,
      createdAt: at,
      updatedAt: at,
      dueDay,
      originalDueDay: dueDay,
      products: input.products,
      client: input.client,
      customerId: this.customerFor(input, at),
      ecommerce: input.ecommerce,
      orderUrl: input.orderUrl,
      storeUrl: input.storeUrl,
      webhookUrl: input.webhookUrl,
      grossCents,
      discountCents,
      shippingCents: input.shippingCents,
      feesCents: feesFor(input.type, grossCents),
      statusCode: 1,
      pix:
        input.type === PAYMENT_TYPE.card
          ? null
          : {
              payload: pixPayload(id, grossCents),
              status: 'qr_code_created',
              endToEndId: null,
              refundId: null,
            },
      billet: input.type === PAYMENT_TYPE.billet ? billet(seq, grossCents, dueDay) : null,
      card: input.card && {
        token: input.card.record.token,
        brand: input.card.record.brand,
        bin: input.card.record.bin,
        last4: input.card.record.last4,
        expire: input.card.valid,
        holderName: input.card.holderName,
        approved: input.card.record.approved,
      },
      payment: { method: null, paidCents: null, paidAt: null },
      refunds: [],
      tracking: null,
    };
    store.saveInvoice(rec);
    this.core.emit('invoice.created', rec);
    return rec;
  }

  /** PATCH /invoices: a new due day for a PIX or bank slip invoice in 1 or 15; the status code stays (A11). */
  changeDueDate(body: JsonObject): SandboxInvoiceRecord {
    const c = new FieldCheck();
    const payment = c.object(body, 'payment', 'payment', true) ?? {};
    const invoiceId = c.string(payment, 'invoice_id', 'payment.invoice_id', { required: true });
    const dueAt = c.day(payment, 'due_at', 'payment.due_at', true);
    const today = localDay(this.core.now(), this.core.timeZone);
    if (typeof dueAt === 'string' && dueAt < today)
      c.fail('payment.due_at', `must not be before today (${today})`);
    c.done();
    const rec = this.byInvoiceId(invoiceId as string);
    if (rec.type === PAYMENT_TYPE.card) {
      throw stateConflict('the due date can change only on PIX and bank slip invoices', rec.statusCode);
    }
    if (!DUE_DATE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`the due date cannot change in status ${rec.statusCode}`, rec.statusCode);
    }
    this.lifecycle.moveDueDay(rec, dueAt as string);
    rec.updatedAt = this.core.now().toISOString();
    // The status code stays (§3, A11): an overdue invoice keeps 15 with its new day.
    this.core.store.saveInvoice(rec);
    return rec;
  }

  /** DELETE /invoices: cancels from 1, 2, 3, 4 or 15. */
  cancel(body: JsonObject): SandboxInvoiceRecord {
    const c = new FieldCheck();
    const payment = c.object(body, 'payment', 'payment', true) ?? {};
    const id = c.string(payment, 'id', 'payment.id', { required: true });
    c.done();
    const rec = this.byId(id as string);
    if (!CANCELLABLE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`invoice ${rec.id} cannot be canceled in status ${rec.statusCode}`, rec.statusCode);
    }
    this.lifecycle.transition(rec, 6);
    return rec;
  }

  /** PUT /invoices: full or partial refund from 5 or 8 (A8). */
  refund(body: JsonObject): SandboxInvoiceRecord {
    const c = new FieldCheck();
    const payment = c.object(body, 'payment', 'payment', true) ?? {};
    const id = c.string(payment, 'id', 'payment.id', { required: true });
    const invoiceId = c.string(payment, 'invoice_id', 'payment.invoice_id', { required: true });
    const amount = c.money(payment, 'amount', 'payment.amount', { required: true, positive: true });
    c.done();
    const rec = this.byId(id as string);
    if (rec.invoiceId !== invoiceId) throw invalidField('payment.invoice_id', 'does not match payment.id');
    if (!REFUNDABLE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`invoice ${rec.id} cannot be refunded in status ${rec.statusCode}`, rec.statusCode);
    }
    const paid = rec.payment.paidCents ?? rec.grossCents;
    const remaining = paid - rec.refunds.reduce((s, r) => s + r.amountCents, 0);
    if ((amount as number) > remaining) {
      throw invalidField(
        'payment.amount',
        `must be at most ${toDecimalString(remaining)}, what remains refundable`,
      );
    }
    const now = this.core.now();
    const slip = rec.payment.method === 'billet';
    const code = slip ? 7 : remaining === amount ? 9 : 8;
    this.lifecycle.transition(rec, code, (r) => {
      r.refunds.push({ amountCents: amount as number, at: now.toISOString(), completed: !slip });
      if (r.payment.method === 'pix' && r.pix) r.pix.refundId = pixEndToEndId(now, 'D');
    });
    return rec;
  }

  /** POST /invoices/tracking: attaches a tracking code in 4, 5 or 8 (A9). */
  track(body: JsonObject): SandboxInvoiceRecord {
    const c = new FieldCheck();
    const payment = c.object(body, 'payment', 'payment', true) ?? {};
    const invoiceId = c.string(payment, 'invoice_id', 'payment.invoice_id', { required: true });
    const tracking = c.object(body, 'tracking', 'tracking', true) ?? {};
    const code = c.string(tracking, 'code', 'tracking.code', { required: true, max: 64 });
    const carrier = c.string(tracking, 'carrier', 'tracking.carrier', { max: 64 });
    const url = c.url(tracking, 'url', 'tracking.url');
    c.done();
    const rec = this.byInvoiceId(invoiceId as string);
    if (!TRACKABLE_CODES.includes(rec.statusCode)) {
      throw stateConflict(`a tracking code cannot be added in status ${rec.statusCode}`, rec.statusCode);
    }
    if (rec.tracking?.code === code) return rec;
    const now = this.core.now().toISOString();
    rec.tracking = { code: code as string, carrier: carrier ?? null, url: url ?? null, createdAt: now };
    rec.updatedAt = now;
    this.core.store.saveInvoice(rec);
    this.core.emit('invoice.tracking', rec);
    return rec;
  }

  private byId(id: string): SandboxInvoiceRecord {
    const rec = this.core.store.invoices.get(id);
    if (!rec) throw notFound(`no invoice with id ${id}`);
    return rec;
  }

  private byInvoiceId(invoiceId: string): SandboxInvoiceRecord {
    const rec = this.core.store.findInvoiceByInvoiceId(invoiceId);
    if (!rec) throw notFound(`no invoice with invoice_id ${invoiceId}`);
    return rec;
  }

  /** The consumer for this client (by document, else e-mail), created on first sight (A10). */
  private customerFor(input: CreateInput, at: string): string {
    const { document, email, name } = input.client;
    for (const c of this.core.store.consumers.values()) {
      if ((document && c.document === document) || (!document && email && c.email === email)) return c.id;
    }
    const id = `cus_${String(this.core.store.next('consumer')).padStart(6, '0')}`;
    this.core.store.saveConsumer({ id, name: name ?? '', document, email, createdAt: at });
    return id;
  }
}

/**
 * Gross = Σ(amount × qnt − line discount) − payment.discount + shipping, in cents (§4.2, A1); a line's discount is
 * the product's `discount`, or `discount × qnt` when the sandbox reads it per unit (`productDiscount`).
 */
function totals(
  input: CreateInput,
  rule: ProductDiscountRule,
): { grossCents: number; discountCents: number } {
  const lineDiscounts = input.products.reduce((s, p) => s + lineDiscountCents(p, rule), 0);
  const subtotal = input.products.reduce((s, p) => s + p.amountCents * p.qnt, 0) - lineDiscounts;
  if (input.invoiceDiscountCents > subtotal) {
    throw invalidField('payment.discount', "must not exceed the products' total");
  }
  const grossCents = subtotal - input.invoiceDiscountCents + input.shippingCents;
  if (grossCents <= 0) throw invalidField('payment.products', 'the invoice total must be greater than zero');
  if (grossCents > MAX_TOTAL_CENTS) throw invalidField('payment.products', 'the invoice total is too large');
  const discountCents = lineDiscounts + input.invoiceDiscountCents;
  return { grossCents, discountCents };
}

function feesFor(type: number, grossCents: number): number {
  if (type === PAYMENT_TYPE.pix) return shareOf(grossCents, FEES.pixBasisPoints);
  // Flat, as the service charges it: a slip below the fee has a negative `net` (A1: the module reads it).
  if (type === PAYMENT_TYPE.billet) return FEES.billetCents;
  return shareOf(grossCents, FEES.cardBasisPoints);
}
