import { textProblem, type TextRule } from '../core/text-bounds';
import { isHttpUrl } from '../gateway/dto/validators';
import { centsToDecimalString, type Cents } from '../gateway/money';
import type { CreateInvoiceParams, InvoiceAddress, PaymentMethod } from '../gateway/types';
import {
  mapAddress,
  mapCard,
  mapCustomer,
  nonEmpty,
  recognisedOrder,
  type RecognisedOrder,
  textRule,
  type TextLimits,
} from './client-mapping';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { CheckoutValidationError, FieldErrorCollector } from './errors';
import type { CheckoutOrder, InitiatePaymentInput } from './types';

/** Medusa's `initiatePayment` input; `amount` must equal `order.total`. */
export type CheckoutRequest = Omit<InitiatePaymentInput, 'context'>;

/** An order mapped to the service's create-invoice parameters (`params` for attempt 1: see {@link withReferrer}). */
export interface MappedInvoice {
  params: CreateInvoiceParams;
  reference: string;
  totalCents: Cents;
  method: PaymentMethod;
  shown: RecognisedOrder;
}

/** `<namespace>:<reference>-<attempt>`: unique per attempt and store, so an unknown outcome can be looked up. */
export function invoiceReferrer(reference: string, attempt: number, namespace = ''): string {
  return namespace ? `${namespace}:${reference}-${attempt}` : `${reference}-${attempt}`;
}

/** A referrer namespace: 1 to 16 lowercase letters and digits (no `:`, which ends it in a referrer). */
export function isReferrerNamespace(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z0-9]{1,16}$/.test(value);
}

export function withReferrer(params: CreateInvoiceParams, referrer: string): CreateInvoiceParams {
  return { ...params, payment: { ...params.payment, referrer } };
}

/** Validates a checkout request and maps it to an invoice (spec §4.2); every problem is thrown at once. */
export function mapOrderToInvoice(request: CheckoutRequest, options: ResolvedCheckoutOptions): MappedInvoice {
  const errors = new FieldErrorCollector();
  const data = request?.data;
  const order = data?.order;
  if (!order || typeof order !== 'object') throw new CheckoutValidationError({ order: ['is required'] });
  const method = data.method;
  if (!options.methods.includes(method)) errors.add('method', `must be one of ${options.methods.join(', ')}`);
  const limits = options.textLimits;
  checkId(errors, 'order.id', order.id, textRule(limits, 'orderId', true));
  for (const [field, code] of [
    ['currency_code', request.currency_code],
    ['order.currency_code', order.currency_code],
  ] as const) {
    if (typeof code !== 'string' || code.toUpperCase() !== 'BRL') errors.add(field, 'must be BRL');
  }

  const totalCents = checkItems(order, request.amount, errors, options);
  const physical = Array.isArray(order.items) && order.items.some((i) => i?.requires_shipping !== false);

  let address: InvoiceAddress | undefined;
  if (order.shipping_address) {
    address = mapAddress(order.shipping_address, order, options, errors);
  } else if (physical) {
    errors.add('order.shipping_address', 'is required when an item requires shipping');
  }
  // A4: international when the address is outside Brazil; a customer without an address is domestic.
  const international = address !== undefined && address.country !== 'BRA';
  const client = mapCustomer(order, international, errors, limits);
  if (address) client.address = address;

  const today = todayIn(options.timeZone, new Date());
  const { installments, card } = mapCard(data, options, today, errors);

  const reference = referenceOf(order, limits, errors);
  errors.throwIfAny();

  const lineDiscounts = order.items.reduce((sum, item) => sum + (item.discount_total ?? 0), 0);
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
      ...urls(order, reference, options),
      ...(options.publicWebhookUrl ? { webhook: options.publicWebhookUrl } : {}),
      discountCents: (order.discount_total ?? 0) - lineDiscounts,
      products: order.items.map((item) => ({
        id: item.id,
        ...(nonEmpty(item.thumbnail) ? { image: item.thumbnail } : {}),
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

/**
 * The items' texts, and whole cents adding up to the total, none above `maxTotalCents` (past a safe integer the sum
 * is float math).
 */
function checkItems(
  order: CheckoutOrder,
  amount: unknown,
  errors: FieldErrorCollector,
  { maxItems, maxTotalCents, textLimits }: ResolvedCheckoutOptions,
): Cents {
  const before = errors.count();
  // An order of 10,000 lines is refused without walking it.
  if (Array.isArray(order.items) && order.items.length > maxItems) {
    errors.add('order.items', `must have at most ${maxItems} items (checkout.maxItems)`);
    return 0;
  }
  const most = `${centsToDecimalString(maxTotalCents)} (checkout.maxTotalCents)`;
  if (Number.isSafeInteger(order.total) && order.total > maxTotalCents) {
    errors.add('order.total', `must be at most ${most}`);
  }
  const cents = (field: string, value: unknown, required: boolean, bounded = true): value is Cents => {
    if (value === undefined && !required) return true;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      errors.add(field, 'must be a non-negative integer number of cents');
      return false;
    }
    if (bounded && (value as number) > maxTotalCents) {
      errors.add(field, `must be at most ${most}`);
      return false;
    }
    return true;
  };
  if (!Array.isArray(order.items) || order.items.length === 0) {
    errors.add('order.items', 'must contain at least one item');
  }
  let gross = 0;
  let lineDiscounts = 0;
  let texts = 0; // a text's problem does not stop the sum
  const text = (field: string, problem: string | null) => {
    if (problem) {
      errors.add(field, problem);
      texts++;
    }
  };
  (Array.isArray(order.items) ? order.items : []).forEach((item, i) => {
    const at = `order.items[${i}]`;
    if (!item || typeof item !== 'object') return errors.add(at, 'must be an item');
    text(`${at}.id`, textProblem(item.id, textRule(textLimits, 'productId', true)));
    text(`${at}.title`, textProblem(item.title, textRule(textLimits, 'title', true)));
    const image = textProblem(item.thumbnail, textRule(textLimits, 'imageUrl'));
    const notUrl = nonEmpty(item.thumbnail) && !isHttpUrl(item.thumbnail.trim());
    text(`${at}.thumbnail`, image ?? (notUrl ? 'must be an absolute http(s) URL' : null));
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) {
      errors.add(`${at}.quantity`, 'must be a positive integer');
    }
    const priced = cents(`${at}.unit_price`, item.unit_price, true);
    const discounted = cents(`${at}.discount_total`, item.discount_total, false);
    if (priced && Number.isSafeInteger(item.quantity) && item.quantity >= 1) {
      const line = item.unit_price * item.quantity;
      if (line > maxTotalCents)
        return errors.add(`${at}.quantity`, `times unit_price must be at most ${most}`);
      if (discounted && (item.discount_total ?? 0) > line) {
        errors.add(`${at}.discount_total`, 'must not exceed the line total');
      }
      gross += line;
      lineDiscounts += discounted ? (item.discount_total ?? 0) : 0;
    }
  });
  const okShipping = cents('order.shipping_total', order.shipping_total, false);
  const okDiscount = cents('order.discount_total', order.discount_total, false);
  const okTotal = cents('order.total', order.total, true, false); // bounded above, with its own message
  if (okTotal && order.total === 0) errors.add('order.total', 'must be positive');
  if (okDiscount && (order.discount_total ?? 0) < lineDiscounts) {
    errors.add('order.discount_total', "must include the items' discount_total");
  }
  if (errors.count() - texts > before || !okShipping || !okTotal) return 0;

  const shipping = order.shipping_total ?? 0;
  const discount = order.discount_total ?? 0;
  const sum = gross - discount + shipping;
  if (!Number.isSafeInteger(gross) || !Number.isSafeInteger(sum)) {
    // Only with options past any real order (maxItems × maxTotalCents over 2^53): still a 400, never a float sum.
    errors.add('order.items', `add up past ${Number.MAX_SAFE_INTEGER} cents`);
  } else if (sum !== order.total) {
    const f = centsToDecimalString;
    errors.add(
      'order.total',
      `does not add up: items ${f(gross)} - discounts ${f(discount)} + shipping ${f(shipping)} = ${f(sum)}, not ${f(order.total)}`,
    );
  } else if (amount !== order.total) {
    errors.add('amount', `must equal the order total (${centsToDecimalString(order.total)})`);
  }
  return order.total;
}

/** An id the service and the database key on is never trimmed (A17): the host finds its order by that value. */
function checkId(errors: FieldErrorCollector, field: string, value: unknown, rule: TextRule): void {
  const problem =
    typeof value === 'string' && value.trim() !== value && value.trim() !== ''
      ? 'must not start or end with spaces'
      : textProblem(value, rule);
  if (problem) errors.add(field, problem);
}

/** `reference`, else `display_id`, else `id`; `display_id` is checked whenever given (the record keeps it). */
function referenceOf(order: CheckoutOrder, limits: TextLimits, errors: FieldErrorCollector): string {
  const rule = textRule(limits, 'reference', true);
  const display = order.display_id;
  if (display !== undefined && display !== null) {
    if (typeof display !== 'number') checkId(errors, 'order.display_id', display, rule);
    else if (!Number.isSafeInteger(display) || display < 0) {
      errors.add('order.display_id', 'must be a string or a non-negative integer');
    }
  }
  if (order.reference !== undefined && order.reference !== null) {
    checkId(errors, 'order.reference', order.reference, rule);
    return order.reference;
  }
  if (display !== undefined && display !== null) return String(display);
  if (!errors.has('order.id')) checkId(errors, 'order.id', order.id, rule);
  return order.id;
}

function urls(order: CheckoutOrder, reference: string, options: ResolvedCheckoutOptions) {
  const fill = (template: string) =>
    template.replace(/\{(order_id|display_id|reference)\}/g, (_, key: string) =>
      encodeURIComponent(
        key === 'order_id' ? order.id : key === 'display_id' ? String(order.display_id ?? '') : reference,
      ),
    );
  return {
    ...(options.orderUrlTemplate ? { orderUrl: fill(options.orderUrlTemplate) } : {}),
    ...(options.storeUrlTemplate ? { storeUrl: fill(options.storeUrlTemplate) } : {}),
  };
}

// Due dates are calendar days in the store's zone (A2): at 22:00 in São Paulo it is already tomorrow in UTC.

/** Per zone: its formatter (costly to build) and its last day (`formatToParts` is slow; every checkout asks). */
const zones = new Map<string, { format: Intl.DateTimeFormat; minute: number; day: string }>();

export function todayIn(timeZone: string, now: Date): string {
  // Zones are offset by whole minutes, so the date only turns on a minute boundary.
  const minute = Math.floor(now.getTime() / 60_000);
  let zone = zones.get(timeZone);
  if (zone?.minute === minute) return zone.day;
  if (!zone) {
    // Throws for an unknown zone before anything is cached; bounded against a caller passing arbitrary zones.
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    if (zones.size >= 64) zones.clear();
    zones.set(timeZone, (zone = { format, minute: -1, day: '' }));
  }
  const parts = zone.format.formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  zone.minute = minute;
  return (zone.day = `${get('year')}-${get('month')}-${get('day')}`);
}

export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}
