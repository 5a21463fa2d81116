import { getStates } from '@brazilian-utils/brazilian-utils';
import { isEmail, isIP } from 'class-validator';
import { MAX_PAGE_SIZE } from '../constants';
import { MoneyFormatError, multiplyCents, sumCents } from '../money';
import type { CreateInvoiceParams, ListInvoicesParams, RefundParams } from '../types';
import {
  addFieldError,
  all,
  check,
  each,
  FieldErrors,
  isAlpha3Country,
  isCalendarDay,
  isCents,
  isHttpUrl,
  isNonBlank,
  isString,
  isTaxDocument,
  object,
  optional,
  required,
  Rule,
  when,
} from './validators';

const text = check('is required (a non-empty string)', isNonBlank);
const calendarDay = check('must be a real calendar date written YYYY-MM-DD', isCalendarDay);
const httpUrl = check('must be an absolute http(s) URL', isHttpUrl);
const cents = check('must be a non-negative integer number of cents', (v) => isCents(v));
const isPositiveInteger = (v: unknown) => isCents(v, true);
const positiveInteger = check('must be a positive integer', isPositiveInteger);
const integer = (message: string) => check(message, (v) => typeof v === 'number' && Number.isInteger(v));
const matching = (message: string, pattern: RegExp) =>
  check(message, (v) => typeof v === 'string' && pattern.test(v));

/** The address names a country other than Brazil (A4). */
function isInternational(client: Record<string, unknown>): boolean {
  const country = (client.address as { country?: unknown } | undefined)?.country;
  return country !== undefined && country !== null && country !== 'BRA';
}

const CLIENT = object({
  name: optional(isString),
  document: when(
    (o) => !isInternational(o),
    required(
      'is required for domestic customers (A4)',
      check('must be a valid CPF (11 digits) or CNPJ (14 characters), unformatted', isTaxDocument),
    ),
  ),
  email: when(
    (o) => isInternational(o) || o.email !== undefined,
    required(
      'is required for international customers (A4)',
      check('must be an e-mail address', (v) => isEmail(v)),
    ),
  ),
  phone: optional(isString),
  address: optional(
    object({
      street: text,
      number: text,
      district: text,
      city: text,
      state: matching('must be a two-letter state code', /^[A-Z]{2}$/),
      zipcode: matching('must be digits only', /^\d{1,10}$/),
      country: check('must be a three-letter ISO 3166-1 country code (e.g. BRA)', isAlpha3Country),
    }),
  ),
  ip: optional(check('must be an IPv4 or IPv6 address', (v) => isIP(v))),
});

const PRODUCT = object({
  id: text,
  image: optional(httpUrl),
  title: text,
  quantity: positiveInteger,
  discountCents: cents,
  unitAmountCents: cents,
});

const PAYMENT = object({
  method: check('must be pix, billet or card', (v) => v === 'pix' || v === 'billet' || v === 'card'),
  physical: check('must be true or false', (v) => typeof v === 'boolean'),
  id: text,
  referrer: text,
  dueAt: optional(calendarDay),
  installments: optional(positiveInteger),
  orderUrl: optional(httpUrl),
  storeUrl: optional(httpUrl),
  webhook: optional(httpUrl),
  discountCents: optional(cents),
  products: all(
    check('must be a list of products', Array.isArray),
    check('must hold at least one product', (v) => (v as unknown[]).length > 0),
    each(PRODUCT),
  ),
  card: when(
    (o) => o.method === 'card' || o.card !== undefined,
    required(
      'is required for card payments',
      object({
        token: text,
        valid: matching('must be the card expiry written MM/YY', /^(0[1-9]|1[0-2])\/\d{2}$/),
        holderName: text,
      }),
    ),
  ),
});

export const CREATE_INVOICE: Record<string, Rule> = {
  client: required('is required', CLIENT),
  ecommerce: optional(
    object({ storeId: integer('must be an integer'), checkout: integer('must be an integer') }),
  ),
  payment: required('is required', PAYMENT),
  shippingCents: optional(cents),
};

const UF_CODES: ReadonlySet<string> = new Set<string>(getStates().map((s) => s.code));

export function createInvoiceRules({ client, payment }: CreateInvoiceParams): FieldErrors {
  const errors: FieldErrors = {};
  if (payment.physical && !client.address) {
    addFieldError(errors, 'client.address', 'is required when a product is physical (§4.2)');
  }
  if (client.address?.country === 'BRA') {
    if (!UF_CODES.has(client.address.state))
      addFieldError(errors, 'client.address.state', 'must be a Brazilian state (UF)');
    if (!/^\d{8}$/.test(client.address.zipcode))
      addFieldError(errors, 'client.address.zipcode', 'must be a CEP of 8 digits');
  }
  try {
    const lines = payment.products.map((p, i) => {
      const line = multiplyCents(p.unitAmountCents, p.quantity);
      if (p.discountCents > line) {
        const at = `payment.products[${i}].discountCents`;
        addFieldError(errors, at, 'must not exceed the line total (price × quantity)');
      }
      return line - Math.min(p.discountCents, line);
    });
    if ((payment.discountCents ?? 0) > sumCents(lines)) {
      const problem = 'must not exceed the products total after line discounts';
      addFieldError(errors, 'payment.discountCents', problem);
    }
  } catch (err) {
    if (!(err instanceof MoneyFormatError)) throw err;
    addFieldError(errors, 'payment.products', 'total is too large');
  }
  return errors;
}

const pageSize = `must be an integer from 1 to ${MAX_PAGE_SIZE}`;

export const PAGE_QUERY: Record<string, Rule> = {
  page: optional(positiveInteger),
  limit: optional(check(pageSize, (v) => isPositiveInteger(v) && (v as number) <= MAX_PAGE_SIZE)),
};

export const LIST_INVOICES: Record<string, Rule> = {
  ...PAGE_QUERY,
  status: optional(integer('must be an integer status code')),
  referrer: optional(text),
  paymentId: optional(text),
  createdFrom: optional(calendarDay),
  createdTo: optional(calendarDay),
};

export function listInvoicesRules(filters: ListInvoicesParams): FieldErrors {
  if (!filters.createdFrom || !filters.createdTo || filters.createdFrom <= filters.createdTo) return {};
  return { createdTo: ['must not be before createdFrom'] };
}

/** A lookup's own filters, each a non-blank string. */
export const lookupInput = (names: string[]): Record<string, Rule> =>
  Object.fromEntries(names.map((name) => [name, text]));

export const CHANGE_DUE_DATE: Record<string, Rule> = { invoiceId: text, dueAt: calendarDay };

export const CANCEL_INVOICE: Record<string, Rule> = { id: text };

export const REFUND: Record<string, Rule> = {
  id: text,
  invoiceId: text,
  amountCents: check('must be a positive integer number of cents', (v) => isCents(v, true)),
  refundableCents: optional(cents),
};

export function refundRules({ amountCents, refundableCents }: RefundParams): FieldErrors {
  if (refundableCents === undefined || amountCents <= refundableCents) return {};
  return { amountCents: [`must not exceed what remains refundable (${refundableCents} cents)`] };
}

export const TRACKING: Record<string, Rule> = {
  invoiceId: text,
  code: text,
  carrier: optional(isString, text),
  url: optional(httpUrl),
};

export const WEBHOOK_TOKEN: Record<string, Rule> = { serviceToken: text };

export const RESEND_WEBHOOK: Record<string, Rule> = { url: httpUrl, events: text, webhook: text };

export const AUTHENTICATE: Record<string, Rule> = { clientId: text, clientSecret: text };
