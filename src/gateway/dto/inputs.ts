import { getStates } from '@brazilian-utils/brazilian-utils';
import { isEmail, isIP } from 'class-validator';
import { centsToWireNumber } from '../money';
import { wireName } from '../answers.reader';
import type {
  CreateInvoiceParams,
  InvoiceAddress,
  ListInvoicesParams,
  PaymentMethod,
  RefundParams,
} from '../types';
import type { WireProfile } from '../wire-profile';
import { productsUnder } from './product-discounts';
import * as V from './validators';

const text = V.check('is required (a non-empty string)', V.isNonBlank);
const calendarDay = V.check('must be a real calendar date written YYYY-MM-DD', V.isCalendarDay);
const httpUrl = V.check('must be an absolute http(s) URL', V.isHttpUrl);
const cents = V.check('must be a non-negative integer number of cents', (v) => V.isCents(v));
const positiveInteger = V.check('must be a positive integer', (v) => V.isCents(v, true));
const integer = (message: string) => V.check(message, (v) => typeof v === 'number' && Number.isInteger(v));
const matching = (message: string, pattern: RegExp) =>
  V.check(message, (v) => typeof v === 'string' && pattern.test(v));

/** The address names a country other than Brazil (A4). */
function isInternational(client: Record<string, unknown>): boolean {
  const country = (client.address as { country?: unknown } | undefined)?.country;
  return country !== undefined && country !== null && country !== 'BRA';
}

/** The shapes below list their fields in the order of the §4.2 wire body (the client sends them so). */
export const CLIENT: Record<string, V.Rule> = {
  name: V.optional(V.isString),
  document: V.when(
    (o) => !isInternational(o),
    V.required(
      'is required for domestic customers (A4)',
      V.check('must be a valid CPF (11 digits) or CNPJ (14 characters), unformatted', V.isTaxDocument),
    ),
  ),
  email: V.when(
    (o) => isInternational(o) || o.email !== undefined,
    V.required(
      'is required for international customers (A4)',
      // As the service: no white space, though RFC 5322 allows it quoted.
      V.check('must be an e-mail address', (v) => isEmail(v) && !/\s/.test(v as string)),
    ),
  ),
  phone: V.optional(V.isString),
  address: V.optional(
    V.object({
      street: text,
      number: text,
      district: text,
      city: text,
      state: matching('must be a two-letter state code', /^[A-Z]{2}$/),
      zipcode: matching('must be 2 to 10 digits', /^\d{2,10}$/),
      country: V.check('must be a three-letter ISO 3166-1 country code (e.g. BRA)', V.isAlpha3Country),
    }),
  ),
  ip: V.optional(V.check('must be an IPv4 or IPv6 address', (v) => isIP(v))),
};

export const PRODUCT: Record<string, V.Rule> = {
  id: text,
  image: V.optional(httpUrl),
  title: text,
  quantity: positiveInteger,
  discountCents: cents,
  unitAmountCents: cents,
};

export const PAYMENT: Record<string, V.Rule> = {
  physical: V.check('must be true or false', (v) => typeof v === 'boolean'),
  id: text,
  method: V.check('must be pix, billet or card', (v) => v === 'pix' || v === 'billet' || v === 'card'),
  dueAt: V.optional(calendarDay),
  referrer: text,
  installments: V.optional(positiveInteger),
  orderUrl: V.optional(httpUrl),
  storeUrl: V.optional(httpUrl),
  webhook: V.optional(httpUrl),
  discountCents: V.optional(cents),
  products: V.all(
    V.check('must be a list of products', Array.isArray),
    V.check('must hold at least one product', (v) => (v as unknown[]).length > 0),
    V.each(V.object(PRODUCT)),
  ),
  card: V.when(
    (o) => o.method === 'card' || o.card !== undefined,
    V.required(
      'is required for card payments',
      V.object({
        token: text,
        valid: matching('must be the card expiry written MM/YY', V.CARD_EXPIRY),
        holderName: text,
      }),
    ),
  ),
};

export const CREATE_INVOICE: Record<string, V.Rule> = {
  client: V.required('is required', V.object(CLIENT)),
  ecommerce: V.optional(
    V.object({ storeId: integer('must be an integer'), checkout: integer('must be an integer') }),
  ),
  payment: V.required('is required', V.object(PAYMENT)),
  shippingCents: V.optional(cents),
};

const UF_CODES: ReadonlySet<string> = new Set<string>(getStates().map((s) => s.code));

/** A Brazilian address's state and CEP (`client.address.<field>` to `fail`); others pass. */
export function brazilianAddressRules(
  address: InvoiceAddress,
  fail: (field: string, problem: string) => void,
): void {
  if (address.country !== 'BRA') return;
  if (!UF_CODES.has(address.state)) fail('client.address.state', 'must be a Brazilian state (UF)');
  if (!/^\d{8}$/.test(address.zipcode)) fail('client.address.zipcode', 'must be a CEP of 8 digits');
}

export function createInvoiceRules({ client, payment }: CreateInvoiceParams): V.FieldErrors {
  const errors: V.FieldErrors = {};
  if (payment.physical && !client.address) {
    V.addFieldError(errors, 'client.address', 'is required when a product is physical (§4.2)');
  }
  if (client.address)
    brazilianAddressRules(client.address, (field, problem) => V.addFieldError(errors, field, problem));
  const lines = payment.products.map((p, i) => {
    const line = p.unitAmountCents * p.quantity;
    if (!Number.isSafeInteger(line)) return NaN;
    if (p.discountCents > line) {
      const at = `payment.products[${i}].discountCents`;
      V.addFieldError(errors, at, 'must not exceed the line total (price × quantity)');
    }
    return line - Math.min(p.discountCents, line);
  });
  const total = lines.reduce((sum, line) => sum + line, 0);
  if (!Number.isSafeInteger(total)) {
    V.addFieldError(errors, 'payment.products', 'total is too large');
  } else if ((payment.discountCents ?? 0) > total) {
    const problem = 'must not exceed the products total after line discounts';
    V.addFieldError(errors, 'payment.discountCents', problem);
  }
  return errors;
}

/**
 * Validated `CreateInvoiceParams` → the §4.2 body: codes and the product discount's rule from the profile, exact
 * decimal amounts (A1).
 */
export function toWireCreateInvoice(
  params: CreateInvoiceParams,
  { codes, productDiscount }: Pick<WireProfile, 'codes' | 'productDiscount'>,
) {
  const { client, payment } = params;
  // Each product's `discount` as the service reads it (A1): the line's, or each unit's (a line may go as two).
  const wireProducts = (list: Product[]) =>
    productsUnder(productDiscount, list).map((p) => wireFields(p, PRODUCT, PRODUCT_NAMES));
  const body: Record<string, unknown> = {
    client: wireFields(client, CLIENT),
    payment: wireFields(payment, PAYMENT, {
      physical: ['product_type', (v: boolean) => codes.productTypes[v ? 'physical' : 'digital']],
      method: ['type', (v: PaymentMethod) => codes.paymentTypes[v]],
      products: ['products', wireProducts],
      card: ['card', (c: Card) => (payment.method === 'card' ? wireCard(c) : undefined)],
    }),
  };
  if (params.ecommerce)
    body.ecommerce = { store_id: params.ecommerce.storeId, checkout: params.ecommerce.checkout };
  if (params.shippingCents !== undefined) body.shipping = { amount: centsToWireNumber(params.shippingCents) };
  return body;
}

type WireField = [name: string, convert: (value: never) => unknown];
type Card = NonNullable<CreateInvoiceParams['payment']['card']>;
type Product = CreateInvoiceParams['payment']['products'][number];

const same = (v: unknown) => v;
const wireCard = (c: Card) => ({
  saved: 0,
  tokenize: 0,
  token: c.token,
  valid: c.valid,
  holder: { name: c.holderName },
});

const PRODUCT_NAMES: Record<string, WireField> = {
  quantity: ['qnt', same],
  unitAmountCents: ['amount', centsToWireNumber],
};

/** `value`'s fields in its input rules' order, named by `names`, else by `wireName` (cents as wire numbers); an
 * absent one is left out. */
function wireFields(value: object, rules: object, names: Record<string, WireField> = {}) {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(rules)) {
    const [name, convert] = names[key] ?? [wireName(key), key.endsWith('Cents') ? centsToWireNumber : same];
    const given = (value as Record<string, unknown>)[key];
    const wire = given === undefined ? undefined : convert(given as never);
    if (wire !== undefined) out[name] = wire;
  }
  return out;
}

/** Page size limit of every list operation (§4.1, §8). */
export const MAX_PAGE_SIZE = 100;

/** A list's filters: a page of any list, and the invoices' own. */
export const LIST_INVOICES: Record<string, V.Rule> = {
  page: V.optional(positiveInteger),
  limit: V.optional(V.integerFrom(1, MAX_PAGE_SIZE)),
  status: V.optional(integer('must be an integer status code')),
  referrer: V.optional(text),
  paymentId: V.optional(text),
  createdFrom: V.optional(calendarDay),
  createdTo: V.optional(calendarDay),
};

export function listInvoicesRules(filters: ListInvoicesParams): V.FieldErrors {
  if (!filters.createdFrom || !filters.createdTo || filters.createdFrom <= filters.createdTo) return {};
  return { createdTo: ['must not be before createdFrom'] };
}

/** A lookup's own filters, each a non-blank string. */
export const lookupInput = (names: string[]): Record<string, V.Rule> =>
  Object.fromEntries(names.map((name) => [name, text]));

export const CHANGE_DUE_DATE: Record<string, V.Rule> = { invoiceId: text, dueAt: calendarDay };

export const CANCEL_INVOICE: Record<string, V.Rule> = { id: text };

export const REFUND: Record<string, V.Rule> = {
  id: text,
  invoiceId: text,
  amountCents: V.check('must be a positive integer number of cents', (v) => V.isCents(v, true)),
  refundableCents: V.optional(cents),
};

export function refundRules({ amountCents, refundableCents }: RefundParams): V.FieldErrors {
  if (refundableCents === undefined || amountCents <= refundableCents) return {};
  return { amountCents: [`must not exceed what remains refundable (${refundableCents} cents)`] };
}

export const TRACKING: Record<string, V.Rule> = {
  invoiceId: text,
  code: text,
  carrier: V.optional(V.isString, text),
  url: V.optional(httpUrl),
};

export const WEBHOOK_TOKEN: Record<string, V.Rule> = { serviceToken: text };

export const RESEND_WEBHOOK: Record<string, V.Rule> = { url: httpUrl, events: text, webhook: text };

export const AUTHENTICATE: Record<string, V.Rule> = { clientId: text, clientSecret: text };
