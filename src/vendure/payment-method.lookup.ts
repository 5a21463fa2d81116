import type { PaymentMethod, PaymentMethodService, RequestContext } from '@vendure/core';
import type { PaymentMethod as InvoiceMethod } from '../gateway/types';
import { INVOICE_PAYMENTS_HANDLER_CODE } from './constants';

/** Every payment option of the service, in the order the admin lists them. */
export const INVOICE_METHODS: readonly InvoiceMethod[] = ['pix', 'billet', 'card'];

/** The channel's enabled payment method that uses the `invoice-payments` handler, if any. */
export async function findInvoicePaymentMethod(
  methods: PaymentMethodService,
  ctx: RequestContext,
): Promise<PaymentMethod | undefined> {
  const { items } = await methods.findAll(ctx, { filter: { enabled: { eq: true } } });
  return items.find((m) => m.handler.code === INVOICE_PAYMENTS_HANDLER_CODE);
}

/** The options the store owner offers with this payment method (its `methods` argument; all when none chosen). */
export function offeredMethods(method: PaymentMethod): InvoiceMethod[] {
  const raw = method.handler.args.find((a) => a.name === 'methods')?.value;
  if (!raw) return [...INVOICE_METHODS];
  try {
    const listed: unknown = JSON.parse(raw);
    if (Array.isArray(listed) && listed.length === 0) return [...INVOICE_METHODS];
    if (Array.isArray(listed)) return INVOICE_METHODS.filter((m) => listed.includes(m));
  } catch {
    // Not JSON: a single value.
  }
  return INVOICE_METHODS.filter((m) => m === raw);
}
