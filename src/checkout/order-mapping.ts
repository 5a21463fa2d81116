import { alpha2ToAlpha3 } from 'i18n-iso-countries';
import { messageOf } from '../core/events';
import { readText, textProblem, type TextRule } from '../core/text-bounds';
import { CLIENT, createInvoiceRules, PRODUCT } from '../gateway/dto/inputs';
import { isCents, isTaxDocument, type Rule } from '../gateway/dto/validators';
import { centsToDecimalString, type Cents } from '../gateway/money';
import type { CreateInvoiceParams, InvoiceAddress, PaymentMethod } from '../gateway/types';
import {
  addDays,
  defaultAddressMapper,
  textRule,
  todayIn,
  type TextLimits,
} from '../options/checkout.options';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { recognisedOrder, type RecognisedOrder } from '../persistence/invoice.entity';
import { CheckoutValidationError, FieldErrorCollector } from './errors';
import type { CheckoutAddress, CheckoutCustomer, CheckoutOrder, InitiatePaymentData } from './types';
import type { InitiatePaymentInput } from './types';

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

export function withReferrer(params: CreateInvoiceParams, referrer: string): CreateInvoiceParams {
  return { ...params, payment: { ...params.payment, referrer } };
}

/** CPF or CNPJ without punctuation, upper-cased (alphanumeric CNPJ); `''` when absent. */
export function normalizeDocument(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[\s./-]/g, '').toUpperCase() : '';
}

/** The gateway's own rule accepts `value`: one truth for what the service takes; the checkout names the field. */
function obeys(rule: Rule, value: unknown, parent: object = {}): boolean {
  let ok = true;
  rule(value, '', () => (ok = false), parent as Record<string, unknown>);
  return ok;
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
  const brl = (field: string, code: unknown) =>
    (typeof code === 'string' && code.toUpperCase() === 'BRL') || errors.add(field, 'must be BRL');
  brl('currency_code', request.currency_code);
  brl('order.currency_code', order.currency_code);

  const totalCents = checkItems(order, request.amount, errors, options);
  const physical = Array.isArray(order.items) && order.items.some((i) => i?.requires_shipping !== false);
  let address: InvoiceAddress | undefined;
  if (order.shipping_address) address = mapAddress(order.shipping_address, order, options, errors);
  else if (physical) errors.add('order.shipping_address', 'is required when an item requires shipping');
  // A4: international when the address is outside Brazil; a customer without an address is domestic.
  const client = mapCustomer(order, address !== undefined && address.country !== 'BRA', errors, limits);
  if (address) client.address = address;

  const today = todayIn(options.timeZone, new Date());
  const { installments, card } = mapCard(data, options, today, errors);
  const reference = referenceOf(order, limits, errors);
  errors.throwIfAny();

  const lineDiscounts = order.items.reduce((sum, item) => sum + (item.discount_total ?? 0), 0);
  const fill = (template: string) =>
    template.replace(/\{(order_id|display_id|reference)\}/g, (_, key: string) =>
      encodeURIComponent(
        key === 'order_id' ? order.id : key === 'display_id' ? String(order.display_id ?? '') : reference,
      ),
    );
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
      ...(options.orderUrlTemplate ? { orderUrl: fill(options.orderUrlTemplate) } : {}),
      ...(options.storeUrlTemplate ? { storeUrl: fill(options.storeUrlTemplate) } : {}),
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

/**
 * The items' texts, and whole cents adding up to the total, none above `maxTotalCents` (past a safe integer the sum
 * is float math). A text's problem does not stop the sum.
 */
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
  items.forEach((item, i) => {
    if (!item || typeof item !== 'object') return;
    const at = `order.items[${i}]`;
    readText(errors, `${at}.id`, item.id, textRule(textLimits, 'productId', true));
    readText(errors, `${at}.title`, item.title, textRule(textLimits, 'title', true));
    const url = readText(errors, `${at}.thumbnail`, item.thumbnail, textRule(textLimits, 'imageUrl'));
    if (url && !obeys(PRODUCT.image, url)) errors.add(`${at}.thumbnail`, 'must be an absolute http(s) URL');
  });

  const before = errors.count();
  const most = `at most ${centsToDecimalString(maxTotalCents)} (checkout.maxTotalCents)`;
  if (Number.isSafeInteger(order.total) && order.total > maxTotalCents)
    errors.add('order.total', `must be ${most}`);
  if (items.length === 0) errors.add('order.items', 'must contain at least one item');
  const cents = (field: string, value: unknown, required: boolean, bounded = true): value is Cents => {
    if (value === undefined && !required) return true;
    if (!isCents(value)) errors.add(field, 'must be a non-negative integer number of cents');
    else if (bounded && (value as number) > maxTotalCents) errors.add(field, `must be ${most}`);
    else return true;
    return false;
  };
  let gross = 0;
  let lineDiscounts = 0;
  items.forEach((item, i) => {
    const at = `order.items[${i}]`;
    if (!item || typeof item !== 'object') return errors.add(at, 'must be an item');
    const counted = obeys(PRODUCT.quantity, item.quantity);
    if (!counted) errors.add(`${at}.quantity`, 'must be a positive integer');
    const priced = cents(`${at}.unit_price`, item.unit_price, true);
    const discount = cents(`${at}.discount_total`, item.discount_total, false)
      ? (item.discount_total ?? 0)
      : 0;
    if (!priced || !counted) return;
    const line = item.unit_price * item.quantity;
    if (line > maxTotalCents) return errors.add(`${at}.quantity`, `times unit_price must be ${most}`);
    if (discount > line) errors.add(`${at}.discount_total`, 'must not exceed the line total');
    gross += line;
    lineDiscounts += discount;
  });
  cents('order.shipping_total', order.shipping_total, false);
  const okDiscount = cents('order.discount_total', order.discount_total, false);
  const okTotal = cents('order.total', order.total, true, false); // bounded above, with its own message
  if (okTotal && order.total === 0) errors.add('order.total', 'must be positive');
  if (okDiscount && (order.discount_total ?? 0) < lineDiscounts) {
    errors.add('order.discount_total', "must include the items' discount_total");
  }
  if (errors.count() > before) return 0;

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

/** An id the service and the database key on is never trimmed (A17): the host finds its order by that value. */
function checkId(errors: FieldErrorCollector, field: string, value: unknown, rule: TextRule): void {
  const padded = typeof value === 'string' && value.trim() !== value && value.trim() !== '';
  const problem = padded ? 'must not start or end with spaces' : textProblem(value, rule);
  if (problem) errors.add(field, problem);
}

/** `reference`, else `display_id`, else `id`; `display_id` is checked whenever given (the record keeps it). */
function referenceOf(order: CheckoutOrder, limits: TextLimits, errors: FieldErrorCollector): string {
  const rule = textRule(limits, 'reference', true);
  const display = order.display_id ?? undefined;
  if (typeof display === 'number') {
    if (!Number.isSafeInteger(display) || display < 0) {
      errors.add('order.display_id', 'must be a string or a non-negative integer');
    }
  } else if (display !== undefined) checkId(errors, 'order.display_id', display, rule);
  if (order.reference !== undefined && order.reference !== null) {
    checkId(errors, 'order.reference', order.reference, rule);
    return order.reference;
  }
  if (display !== undefined) return String(display);
  if (!errors.has('order.id')) checkId(errors, 'order.id', order.id, rule);
  return order.id;
}

/** The invoice's `client` (spec §4.2): document required for domestic customers, e-mail for international (A4). */
function mapCustomer(
  order: CheckoutOrder,
  international: boolean,
  errors: FieldErrorCollector,
  limits: TextLimits,
): CreateInvoiceParams['client'] {
  const customer: Partial<Record<keyof CheckoutCustomer, unknown>> =
    order.customer && typeof order.customer === 'object' ? order.customer : {};
  const text = (field: keyof CheckoutCustomer, limit: keyof TextLimits) =>
    readText(errors, `order.customer.${field}`, customer[field], textRule(limits, limit));
  const client: CreateInvoiceParams['client'] = {};
  const given = text('name', 'name');
  const name = given ?? [text('first_name', 'name'), text('last_name', 'name')].filter(Boolean).join(' ');
  const nameless = "is required (the payer's name: name, or first_name and last_name)";
  if (!given && name.length > limits.name) {
    errors.add('order.customer.first_name', `with last_name must be at most ${limits.name} characters`);
  } else if (name) client.name = name;
  else if (!['name', 'first_name', 'last_name'].some((field) => errors.has(`order.customer.${field}`))) {
    errors.add(`order.customer.${typeof customer.name === 'string' ? 'name' : 'first_name'}`, nameless);
  }

  const document = normalizeDocument(text('document', 'document'));
  if (document) {
    if (!isTaxDocument(document)) errors.add('order.customer.document', 'is not a valid CPF or CNPJ');
    client.document = document;
  } else if (!international && !errors.has('order.customer.document')) {
    errors.add('order.customer.document', 'is required for Brazilian customers (CPF or CNPJ)');
  }
  const email = text('email', 'email');
  if (email) {
    client.email = email;
    if (!obeys(CLIENT.email, email, client)) errors.add('order.customer.email', 'is not an e-mail address');
  } else if (international && !errors.has('order.customer.email')) {
    errors.add('order.customer.email', 'is required for international customers');
  }
  const phone = text('phone', 'phone')?.replace(/\D/g, '');
  if (phone !== undefined) {
    if (phone.length < 8 || phone.length > 15) errors.add('order.customer.phone', 'must have 8 to 15 digits');
    client.phone = phone;
  }
  const ip = readText(errors, 'order.customer_ip', order.customer_ip, { max: 64 });
  if (ip && !obeys(CLIENT.ip, ip)) errors.add('order.customer_ip', 'is not an IP address');
  if (ip) client.ip = ip;
  return client;
}

/** The input field of each mapped field whose name differs. */
const RENAMED: Record<string, keyof CheckoutAddress> = {
  street: 'address_1',
  state: 'province',
  zipcode: 'postal_code',
  country: 'country_code',
};

/** Checked (type, control characters, length) before any mapping. */
const INPUT_FIELDS = [...Object.values(RENAMED), 'address_2', 'number', 'district', 'city'] as const;

/** Each mapped field's problem when the gateway's rules refuse it; the second one in Brazil (a UF, a CEP). */
const ADDRESS_PROBLEMS: Record<keyof InvoiceAddress, readonly [string, string?]> = {
  street: ['is required'],
  number: ['is required'],
  district: ['is required (or address_2)'],
  city: ['is required'],
  state: ['must be a two-letter state code', 'must be one of the 27 Brazilian UFs'],
  zipcode: ['must be a postal code', 'must be an 8-digit CEP'],
  country: ['must be an ISO 3166-1 country code'],
};

/** The order's address mapped (`br` → `BRA`, CEP digits), checked by the gateway's rules; only returned when whole. */
function mapAddress(
  address: CheckoutAddress,
  order: CheckoutOrder,
  { mapAddress: mapper, textLimits }: ResolvedCheckoutOptions,
  errors: FieldErrorCollector,
): InvoiceAddress | undefined {
  if (typeof address !== 'object' || address === null) {
    errors.add('order.shipping_address', 'must be an address object');
    return undefined;
  }
  const rule = textRule(textLimits, 'address');
  const given = errors.count();
  for (const key of INPUT_FIELDS) readText(errors, `order.shipping_address.${key}`, address[key], rule);
  if (errors.count() > given) return undefined;
  const name = (field: keyof InvoiceAddress) =>
    mapper ? `order.shipping_address (mapped ${field})` : `order.shipping_address.${RENAMED[field] ?? field}`;
  let mapped: Partial<InvoiceAddress>;
  try {
    mapped = (mapper ?? defaultAddressMapper)(address, order);
  } catch (err) {
    errors.add('order.shipping_address', `could not be mapped: ${messageOf(err)}`);
    return undefined;
  }
  const out = {} as InvoiceAddress;
  for (const key of Object.keys(ADDRESS_PROBLEMS) as Array<keyof InvoiceAddress>) {
    out[key] = readText(errors, name(key), mapped?.[key], rule) ?? '';
  }
  const code = out.country.toUpperCase();
  out.country = code.length === 2 ? (alpha2ToAlpha3(code) ?? '') : code;
  out.state = out.state.toUpperCase();
  const brazil = out.country === 'BRA';
  out.zipcode = brazil
    ? out.zipcode.replace(/[.\s]/g, '').replace(/^(\d{5})-/, '$1')
    : out.zipcode.replace(/[\s-]/g, '').toUpperCase();

  // The gateway's rules for an address, Brazil's (UF, CEP) among its rules for a whole invoice.
  const refused = new Set<string>();
  CLIENT.address(out, '', (path) => refused.add(path), {});
  const inBrazil = createInvoiceRules({ client: { address: out }, payment: { products: [] } } as never);
  for (const path of Object.keys(inBrazil)) refused.add(path.replace('client.address.', ''));
  for (const key of refused as Set<keyof InvoiceAddress>) {
    const [anywhere, brazilian] = ADDRESS_PROBLEMS[key];
    if (!errors.has(name(key))) errors.add(name(key), (brazil && brazilian) || anywhere);
  }
  return errors.count() === given ? out : undefined;
}

const MM_YY = /^(0[1-9]|1[0-2])\/(\d{2})$/;

function mapCard(
  data: InitiatePaymentData,
  { maxInstallments, textLimits }: Pick<ResolvedCheckoutOptions, 'maxInstallments' | 'textLimits'>,
  today: string,
  errors: FieldErrorCollector,
): { installments: number; card?: NonNullable<CreateInvoiceParams['payment']['card']> } {
  const installments = data.installments ?? 1;
  if (data.method !== 'card') {
    if (installments !== 1) errors.add('installments', 'must be 1 for PIX and bank slip');
    return { installments: 1 };
  }
  if (!Number.isSafeInteger(installments) || installments < 1 || installments > maxInstallments) {
    errors.add('installments', `must be an integer from 1 to ${maxInstallments}`);
  }
  const card = data.card;
  if (!card || typeof card !== 'object') {
    errors.add('card', 'is required for card payments');
    return { installments };
  }
  const rule = (name: keyof TextLimits) => textRule(textLimits, name, true);
  readText(errors, 'card.token', card.token, rule('cardToken'));
  const holderName = readText(errors, 'card.holder_name', card.holder_name, rule('holderName')) ?? '';
  const expiry = typeof card.expiry === 'string' && MM_YY.test(card.expiry);
  if (!expiry || !isCardExpiryCurrent(card.expiry, today)) {
    errors.add('card.expiry', expiry ? 'is in the past: the card has expired' : 'must be MM/YY');
  }
  return { installments, card: { token: card.token, valid: card.expiry, holderName } };
}

/** A card is valid through the last day of its expiry month (`MM/YY`). */
export function isCardExpiryCurrent(expiry: string, today: string): boolean {
  const m = MM_YY.exec(expiry);
  const [y, mo] = today.split('-').map(Number);
  return m !== null && (2000 + Number(m[2])) * 12 + Number(m[1]) >= y * 12 + mo;
}
