import { addDays, todayIn } from '../domain/calendar';
import { readText, textProblem } from '../domain/text-bounds';
import { CARD_EXPIRY, isCardExpiryCurrent } from '../gateway/dto/validators';
import type { CreateInvoiceParams, InvoiceAddress } from '../gateway/types';
import { fillUrlTemplate, textRule } from '../options/checkout.options';
import type { ResolvedCheckoutOptions, TextLimits } from '../options/checkout.options';
import { recognisedOrder } from '../persistence/invoice.entity';
import { CheckoutValidationError, FieldErrorCollector } from '../core/invoice.errors';
import { invoiceReferrer } from '../core/attempt-claim';
import type { CheckoutOrder, CheckoutRequest, MappedInvoice } from '../core/checkout.types';
import { checkItems } from './order-items';
import { mapAddress, mapCustomer } from './payer-mapping';

/**
 * Validates a checkout request and maps it to an invoice (spec §4.2); every problem is thrown at once. `now` (epoch
 * ms) gives today's day in the store's time zone: the due date counts from it and a card must not have expired.
 */
export function mapOrderToInvoice(
  request: CheckoutRequest,
  options: ResolvedCheckoutOptions,
  now: number,
): MappedInvoice {
  const errors = new FieldErrorCollector();
  const data = request?.data;
  const order = data?.order;
  if (!order || typeof order !== 'object') throw new CheckoutValidationError({ order: ['is required'] });
  const method = data.method;
  if (!options.methods.includes(method)) errors.add('method', `must be one of ${options.methods.join(', ')}`);
  const limits = options.textLimits;
  checkBrl(errors, 'currency_code', request.currency_code);
  checkBrl(errors, 'order.currency_code', order.currency_code);
  const totalCents = checkItems(order, request.amount, errors, options);
  const physical = Array.isArray(order.items) && order.items.some((i) => i?.requires_shipping !== false);
  let address: InvoiceAddress | undefined;
  if (order.shipping_address) address = mapAddress(order.shipping_address, order, options, errors);
  else if (physical) errors.add('order.shipping_address', 'is required when an item requires shipping');
  // A4: international when the address is outside Brazil; a customer without an address is domestic.
  const client = mapCustomer(order, address !== undefined && address.country !== 'BRA', errors, limits);
  if (address) client.address = address;
  const today = todayIn(options.timeZone, new Date(now));
  const { installments, card } = mapCard(data, options, today, errors);
  const reference = referenceOf(order, limits, errors);
  errors.throwIfAny();

  const lineDiscounts = order.items.reduce((sum, item) => sum + (item.discount_total ?? 0), 0);
  const values = { order_id: order.id, display_id: String(order.display_id ?? ''), reference };
  const fillTemplate = (template: string) => fillUrlTemplate(template, values);
  const params: CreateInvoiceParams = {
    client,
    ...(options.ecommerce ? { ecommerce: { ...options.ecommerce } } : {}),
    payment: {
      method,
      physical,
      id: order.id,
      referrer: invoiceReferrer(reference, 1),
      dueAt: addDays(today, options.dueDays),
      installments,
      ...(options.orderUrlTemplate ? { orderUrl: fillTemplate(options.orderUrlTemplate) } : {}),
      ...(options.storeUrlTemplate ? { storeUrl: fillTemplate(options.storeUrlTemplate) } : {}),
      ...(options.publicWebhookUrl ? { webhook: options.publicWebhookUrl } : {}),
      discountCents: (order.discount_total ?? 0) - lineDiscounts,
      products: order.items.map((item) => ({
        id: item.id,
        ...(item.thumbnail?.trim() ? { image: item.thumbnail } : {}),
        title: item.title.trim(),
        quantity: item.quantity,
        discountCents: item.discount_total ?? 0,
        unitAmountCents: item.unit_price,
      })),
      ...(card ? { card } : {}),
    },
    shippingCents: order.shipping_total ?? 0,
  };
  return { params, reference, totalCents, method, shown: recognisedOrder(order, client) };
}

function checkBrl(errors: FieldErrorCollector, field: string, code: unknown): void {
  const brl = typeof code === 'string' && code.toUpperCase() === 'BRL';
  if (!brl) errors.add(field, 'must be BRL');
}

/** The order's ids, and its reference: `reference`, else `display_id` (the record keeps it), else `id`. */
function referenceOf(order: CheckoutOrder, limits: TextLimits, errors: FieldErrorCollector): string {
  // An id the service and the database key on is never trimmed (A17): the host finds its order by that value.
  const check = (field: string, value: unknown, limit: keyof TextLimits) => {
    const padded = typeof value === 'string' && value.trim() !== value && value.trim() !== '';
    const problem = padded
      ? 'must not start or end with spaces'
      : textProblem(value, textRule(limits, limit, true));
    if (problem) errors.add(field, problem);
  };
  check('order.id', order.id, 'orderId');
  const display = order.display_id ?? undefined;
  if (typeof display !== 'number') {
    if (display !== undefined) check('order.display_id', display, 'reference');
  } else if (!Number.isSafeInteger(display) || display < 0) {
    errors.add('order.display_id', 'must be a string or a non-negative integer');
  }
  if (order.reference !== undefined && order.reference !== null) {
    check('order.reference', order.reference, 'reference');
    return order.reference;
  }
  if (display !== undefined) return String(display);
  if (!errors.has('order.id')) check('order.id', order.id, 'reference');
  return order.id;
}

function mapCard(
  { method, card, ...data }: CheckoutRequest['data'],
  { maxInstallments, textLimits }: ResolvedCheckoutOptions,
  today: string,
  errors: FieldErrorCollector,
): { installments: number; card?: NonNullable<CreateInvoiceParams['payment']['card']> } {
  const installments = data.installments ?? 1;
  if (method !== 'card') {
    if (installments !== 1) errors.add('installments', 'must be 1 for PIX and bank slip');
    return { installments: 1 };
  }
  if (!Number.isSafeInteger(installments) || installments < 1 || installments > maxInstallments) {
    errors.add('installments', `must be an integer from 1 to ${maxInstallments}`);
  }
  if (!card || typeof card !== 'object') {
    errors.add('card', 'is required for card payments');
    return { installments };
  }
  const rule = (name: keyof TextLimits) => textRule(textLimits, name, true);
  readText(errors, 'card.token', card.token, rule('cardToken'));
  const holderName = readText(errors, 'card.holder_name', card.holder_name, rule('holderName')) ?? '';
  const expiry = typeof card.expiry === 'string' && CARD_EXPIRY.test(card.expiry);
  if (!expiry || !isCardExpiryCurrent(card.expiry, today)) {
    errors.add('card.expiry', expiry ? 'is in the past: the card has expired' : 'must be MM/YY');
  }
  return { installments, card: { token: card.token, valid: card.expiry, holderName } };
}
