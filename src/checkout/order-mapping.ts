import { addDays, firstDueDay, laterDay, readText, textProblem, todayIn } from '../domain/text-and-days';
import { CLIENT, PRODUCT } from '../gateway/dto/inputs';
import {
  CARD_EXPIRY,
  isCardExpiryCurrent,
  isCents,
  isTaxDocument,
  normalizeDocument,
  obeys,
} from '../gateway/dto/validators';
import { centsToDecimalString, type Cents } from '../gateway/money';
import type { CreateInvoiceParams, InvoiceAddress } from '../gateway/types';
import { fillUrlTemplate, textRule } from '../options/checkout.options';
import type { ResolvedCheckoutOptions, TextLimits } from '../options/checkout.options';
import { recognisedOrder } from '../persistence/invoice.entity';
import { CheckoutValidationError, FieldErrorCollector } from '../core/invoice.errors';
import { invoiceReferrer } from '../core/attempt-claim';
import type { CheckoutOrder, CheckoutRequest, MappedInvoice } from '../core/checkout.types';
import { mapAddress } from './address-mapping';

/**
 * Validates a checkout request and maps it to an invoice (spec §4.2); every problem is thrown at once. The due date
 * counts from `now` (epoch ms) in the store's time zone, never before the service's today in `serviceZone` (the wire
 * profile's `timeZone`, A2), and a card must not have expired by then.
 */
export function mapOrderToInvoice(
  request: CheckoutRequest,
  options: ResolvedCheckoutOptions,
  now: number,
  serviceZone: string,
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
  // Counted in the store's zone, but never a day the service has already left behind.
  const dueAt = laterDay(
    addDays(today, options.dueDays),
    firstDueDay(options.timeZone, serviceZone, new Date(now)),
  );
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
      dueAt,
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

/** The items' texts, and whole cents adding up to the total, each at most `maxTotalCents` (no float sums). */
function checkItems(
  order: CheckoutOrder,
  amount: unknown,
  errors: FieldErrorCollector,
  { maxItems, maxTotalCents, textLimits }: ResolvedCheckoutOptions,
): Cents {
  const items = Array.isArray(order.items) ? order.items : [];
  // An order of 10,000 lines is refused without walking it.
  if (items.length > maxItems) {
    errors.add('order.items', `must have at most ${maxItems} items (checkout.maxItems)`);
    return 0;
  }
  let adds = true; // a text's problem does not stop the sum; an amount's does
  const fail = (field: string, problem: string): false => {
    errors.add(field, problem);
    return (adds = false);
  };
  const most = `at most ${centsToDecimalString(maxTotalCents)} (checkout.maxTotalCents)`;
  const cents = (field: string, value: unknown, required = false): value is Cents | undefined => {
    if (value === undefined && !required) return true;
    if (!isCents(value)) return fail(field, 'must be a non-negative integer number of cents');
    return (value as number) <= maxTotalCents || fail(field, `must be ${most}`);
  };
  if (items.length === 0) fail('order.items', 'must contain at least one item');
  let gross = 0;
  let lineDiscounts = 0;
  items.forEach((item, i) => {
    const at = `order.items[${i}]`;
    if (!item || typeof item !== 'object') return fail(at, 'must be an item');
    readText(errors, `${at}.id`, item.id, textRule(textLimits, 'productId', true));
    readText(errors, `${at}.title`, item.title, textRule(textLimits, 'title', true));
    const url = readText(errors, `${at}.thumbnail`, item.thumbnail, textRule(textLimits, 'imageUrl'));
    if (url && !obeys(PRODUCT.image, url)) errors.add(`${at}.thumbnail`, 'must be an absolute http(s) URL');
    const counted =
      obeys(PRODUCT.quantity, item.quantity) || fail(`${at}.quantity`, 'must be a positive integer');
    const priced = cents(`${at}.unit_price`, item.unit_price, true);
    const discount = cents(`${at}.discount_total`, item.discount_total) ? (item.discount_total ?? 0) : 0;
    if (!priced || !counted) return;
    const line = item.unit_price * item.quantity;
    if (line > maxTotalCents) return fail(`${at}.quantity`, `times unit_price must be ${most}`);
    if (discount > line) fail(`${at}.discount_total`, 'must not exceed the line total');
    gross += line;
    lineDiscounts += discount;
  });
  cents('order.shipping_total', order.shipping_total);
  if (cents('order.discount_total', order.discount_total) && (order.discount_total ?? 0) < lineDiscounts) {
    fail('order.discount_total', "must include the items' discount_total");
  }
  if (cents('order.total', order.total, true) && order.total === 0) fail('order.total', 'must be positive');
  if (!adds) return 0;
  const shipping = order.shipping_total ?? 0;
  const discount = order.discount_total ?? 0;
  const sum = gross - discount + shipping;
  const f = centsToDecimalString;
  if (!Number.isSafeInteger(gross) || !Number.isSafeInteger(sum)) {
    // Only with options past any real order (maxItems × maxTotalCents over 2^53): still a 400, never a float sum.
    errors.add('order.items', `add up past ${Number.MAX_SAFE_INTEGER} cents`);
  } else if (sum !== order.total) {
    const terms = `items ${f(gross)} - discounts ${f(discount)} + shipping ${f(shipping)} = ${f(sum)}`;
    errors.add('order.total', `does not add up: ${terms}, not ${f(order.total)}`);
  } else if (amount !== order.total) {
    errors.add('amount', `must equal the order total (${f(order.total)})`);
  }
  return order.total;
}

/** The invoice's `client` (spec §4.2): document required for domestic customers, e-mail for international (A4). */
function mapCustomer(
  order: CheckoutOrder,
  international: boolean,
  errors: FieldErrorCollector,
  limits: TextLimits,
): CreateInvoiceParams['client'] {
  const customer = ((typeof order.customer === 'object' && order.customer) || {}) as Record<string, unknown>;
  const text = (field: string, limit: keyof TextLimits) =>
    readText(errors, `order.customer.${field}`, customer[field], textRule(limits, limit));
  const client: CreateInvoiceParams['client'] = {};
  const given = text('name', 'name');
  const name = given ?? [text('first_name', 'name'), text('last_name', 'name')].filter(Boolean).join(' ');
  if (!given && name.length > limits.name) {
    errors.add('order.customer.first_name', `with last_name must be at most ${limits.name} characters`);
  } else if (name) client.name = name;
  else if (!['name', 'first_name', 'last_name'].some((field) => errors.has(`order.customer.${field}`))) {
    const field = `order.customer.${typeof customer.name === 'string' ? 'name' : 'first_name'}`;
    errors.add(field, "is required (the payer's name: name, or first_name and last_name)");
  }
  client.document = normalizeDocument(text('document', 'document')) || undefined;
  if (client.document && !isTaxDocument(client.document)) {
    errors.add('order.customer.document', 'is not a valid CPF or CNPJ');
  } else if (!client.document && !international && !errors.has('order.customer.document')) {
    errors.add('order.customer.document', 'is required for Brazilian customers (CPF or CNPJ)');
  }
  client.email = text('email', 'email');
  if (client.email && !obeys(CLIENT.email, client.email, client)) {
    errors.add('order.customer.email', 'is not an e-mail address');
  } else if (!client.email && international && !errors.has('order.customer.email')) {
    errors.add('order.customer.email', 'is required for international customers');
  }
  client.phone = text('phone', 'phone')?.replace(/\D/g, '');
  if (client.phone !== undefined && (client.phone.length < 8 || client.phone.length > 15)) {
    errors.add('order.customer.phone', 'must have 8 to 15 digits');
  }
  client.ip = readText(errors, 'order.customer_ip', order.customer_ip, { max: 64 });
  if (client.ip && !obeys(CLIENT.ip, client.ip)) errors.add('order.customer_ip', 'is not an IP address');
  return client;
}
