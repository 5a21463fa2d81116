import { isIP } from 'node:net';
import { messageOf } from '../core/events';
import { getStates } from '@brazilian-utils/brazilian-utils';
import { isTaxDocument } from '../gateway/dto/validators';
import { alpha2ToAlpha3, alpha3ToAlpha2 } from 'i18n-iso-countries';
import { clip, readText, textProblem, type TextRule } from '../core/text-bounds';
import type { CreateInvoiceParams, InvoiceAddress } from '../gateway/types';
import type { AddressMapper, ResolvedCheckoutOptions } from '../options/checkout.options';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { type FieldErrorCollector } from './errors';
import type { CheckoutAddress, CheckoutCustomer, CheckoutOrder, InitiatePaymentData } from './types';

/** The invoice's `client` (spec §4.2): document required for domestic customers, e-mail for international (A4). */
export function mapCustomer(
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
  const parts = [text('first_name', 'name'), text('last_name', 'name')].filter(nonEmpty).join(' ');
  const name = given ?? parts;
  if (!given && name.length > limits.name) {
    errors.add('order.customer.first_name', `with last_name must be at most ${limits.name} characters`);
  } else if (name) client.name = name;
  else if (!['name', 'first_name', 'last_name'].some((field) => errors.has(`order.customer.${field}`))) {
    const field = typeof customer.name === 'string' ? 'name' : 'first_name';
    errors.add(
      `order.customer.${field}`,
      "is required (the payer's name: name, or first_name and last_name)",
    );
  }

  const document = normalizeDocument(text('document', 'document'));
  if (document) {
    if (!isValidTaxDocument(document)) errors.add('order.customer.document', 'is not a valid CPF or CNPJ');
    client.document = document;
  } else if (!international && !errors.has('order.customer.document')) {
    errors.add('order.customer.document', 'is required for Brazilian customers (CPF or CNPJ)');
  }

  const email = text('email', 'email');
  if (email) {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      errors.add('order.customer.email', 'is not an e-mail address');
    client.email = email;
  } else if (international && !errors.has('order.customer.email')) {
    errors.add('order.customer.email', 'is required for international customers');
  }

  const phone = text('phone', 'phone');
  if (phone) {
    const digits = phone.replace(/\D/g, '');
    if (digits.length < 8 || digits.length > 15)
      errors.add('order.customer.phone', 'must have 8 to 15 digits');
    client.phone = digits;
  }
  const ip = readText(errors, 'order.customer_ip', order.customer_ip, { max: 64 });
  if (ip) {
    if (!isIP(ip)) errors.add('order.customer_ip', 'is not an IP address');
    client.ip = ip;
  }
  return client;
}

/** CPF or CNPJ without punctuation, upper-cased (alphanumeric CNPJ); `''` when absent. */
export function normalizeDocument(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[\s./-]/g, '').toUpperCase() : '';
}

/** An 11-digit CPF or a 14-character CNPJ (numeric or alphanumeric) whose check digits are right. */
export const isValidTaxDocument: (document: string) => boolean = isTaxDocument;

export function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

const BRAZIL = 'BRA';
const UFS: ReadonlySet<string> = new Set(getStates().map((s) => s.code));

/** The input field of each mapped field whose name differs. */
const RENAMED = {
  street: 'address_1',
  state: 'province',
  zipcode: 'postal_code',
  country: 'country_code',
} as const;

/** A Medusa-style address mapped as docs/checkout.md describes (number after the last comma, else `S/N`). */
const defaultAddressMapper: AddressMapper = (address: CheckoutAddress) => {
  let street = address.address_1?.trim() ?? '';
  let number = address.number?.trim() ?? '';
  if (!number) {
    const m = /^(.*\S)\s*,\s*(\d+[A-Za-z]?)$/.exec(street);
    if (m) [, street, number] = m;
  }
  return {
    street,
    number: number || 'S/N',
    district: (address.district ?? address.address_2 ?? '').trim(),
    city: address.city?.trim() ?? '',
    state: address.province?.trim() ?? '',
    zipcode: address.postal_code?.trim() ?? '',
    country: address.country_code?.trim() ?? '',
  };
};

/** Checked (type, control characters, length) before any mapping. */
const INPUT_FIELDS = [...Object.values(RENAMED), 'address_2', 'number', 'district', 'city'] as const;

/** The order's address mapped and checked (for Brazil a UF and an 8-digit CEP); only returned when whole. */
export function mapAddress(
  address: CheckoutAddress,
  order: CheckoutOrder,
  { mapAddress: mapper, textLimits: limits }: ResolvedCheckoutOptions,
  errors: FieldErrorCollector,
): InvoiceAddress | undefined {
  if (typeof address !== 'object' || address === null) {
    errors.add('order.shipping_address', 'must be an address object');
    return undefined;
  }
  const rule = textRule(limits, 'address');
  const given = errors.count();
  for (const key of INPUT_FIELDS) readText(errors, `order.shipping_address.${key}`, address[key], rule);
  if (errors.count() > given) return undefined;
  const name = (field: keyof InvoiceAddress) =>
    mapper
      ? `order.shipping_address (mapped ${field})`
      : `order.shipping_address.${RENAMED[field as keyof typeof RENAMED] ?? field}`;
  let mapped: Partial<InvoiceAddress>;
  try {
    mapped = (mapper ?? defaultAddressMapper)(address, order);
  } catch (err) {
    errors.add('order.shipping_address', `could not be mapped: ${messageOf(err)}`);
    return undefined;
  }
  const before = errors.count();
  const field = (key: keyof InvoiceAddress): string => {
    const value = mapped?.[key];
    const problem = value === undefined || value === null ? null : textProblem(value, rule);
    if (problem) errors.add(name(key), problem);
    return problem || typeof value !== 'string' ? '' : value.trim();
  };

  const out = {} as InvoiceAddress;
  for (const key of ['street', 'number', 'district', 'city'] as const) {
    out[key] = field(key);
    if (!out[key] && !errors.has(name(key)))
      errors.add(name(key), key === 'district' ? 'is required (or address_2)' : 'is required');
  }

  // `br`/`BR`/`BRA` → `BRA`; `undefined` for anything that is not a country code.
  const code = field('country').toUpperCase();
  const country =
    code.length === 2 ? alpha2ToAlpha3(code) : code.length === 3 && alpha3ToAlpha2(code) ? code : undefined;
  if (!country) errors.add(name('country'), 'must be an ISO 3166-1 country code');
  out.country = country ?? '';

  const state = field('state').toUpperCase();
  if (country === BRAZIL && !UFS.has(state)) errors.add(name('state'), 'must be one of the 27 Brazilian UFs');
  else if (!/^[A-Z]{2}$/.test(state)) errors.add(name('state'), 'must be a two-letter state code');
  out.state = state;

  const zip = field('zipcode');
  if (country === BRAZIL) {
    if (!/^\d{5}-?\d{3}$/.test(zip.replace(/[.\s]/g, '')))
      errors.add(name('zipcode'), 'must be an 8-digit CEP');
  } else if (!/^[A-Za-z0-9]{2,10}$/.test(zip.replace(/[\s-]/g, ''))) {
    errors.add(name('zipcode'), 'must be a postal code');
  }
  out.zipcode = country === BRAZIL ? zip.replace(/\D/g, '') : zip.replace(/[\s-]/g, '').toUpperCase();

  return errors.count() === before ? out : undefined;
}

/** What a person recognises an order by, kept on the record for the admin page. */
export type RecognisedOrder = Pick<
  InvoiceRecord,
  'displayId' | 'customerName' | 'customerEmail' | 'customerDocument'
>;

/** A CPF or CNPJ masked for display, the middle kept so a person can tell two customers apart; else `***`. */
export function maskDocument(document: string | undefined | null): string | null {
  if (!document) return null;
  if (/^\d{11}$/.test(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  if (/^[0-9A-Z]{14}$/.test(document)) {
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`;
  }
  return '***';
}

const present = (value: unknown): string | null =>
  nonEmpty(String(value ?? '')) ? String(value).trim() : null;

export function recognisedOrder(
  order: CheckoutOrder,
  client: CreateInvoiceParams['client'],
): RecognisedOrder {
  return {
    displayId: clip(present(order.display_id), 64),
    customerName: clip(present(client.name), 160),
    customerEmail: clip(present(client.email), 254),
    customerDocument: maskDocument(client.document),
  };
}

export function mapCard(
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
  const token = textProblem(card.token, textRule(textLimits, 'cardToken', true));
  if (token) errors.add('card.token', token);
  const holder = textProblem(card.holder_name, textRule(textLimits, 'holderName', true));
  if (holder) errors.add('card.holder_name', holder);
  if (typeof card.expiry !== 'string' || !/^(0[1-9]|1[0-2])\/\d{2}$/.test(card.expiry)) {
    errors.add('card.expiry', 'must be MM/YY');
  } else if (!isCardExpiryCurrent(card.expiry, today)) {
    errors.add('card.expiry', 'is in the past: the card has expired');
  }
  return {
    installments,
    card: { token: card.token, valid: card.expiry, holderName: holder ? '' : card.holder_name.trim() },
  };
}

/** A card is valid through the last day of its expiry month (`MM/YY`). */
export function isCardExpiryCurrent(expiry: string, today: string): boolean {
  const m = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(expiry);
  if (!m) return false;
  const expires = (2000 + Number(m[2])) * 12 + Number(m[1]);
  const [y, mo] = today.split('-').map(Number);
  return expires >= y * 12 + mo;
}

/**
 * Most characters of each text sent to the service (A17: the service's limits), counted after trimming in UTF-16 code
 * units; longer input is a `CheckoutValidationError` naming the field (docs/checkout.md, "Text the module accepts").
 */
export const DEFAULT_TEXT_LIMITS = {
  orderId: 128, // `payment.id`, and the `order_id` column
  reference: 100, // `payment.referrer` (`<namespace>:<reference>-<attempt>`) must fit the service's 128
  name: 200,
  email: 254,
  phone: 32, // as given, punctuation included
  document: 32, // as given, punctuation included
  address: 200, // each of street, number, district, city
  productId: 128,
  title: 250,
  imageUrl: 2048, // `item.thumbnail`
  holderName: 120,
  cardToken: 256,
};

export type TextLimits = Record<keyof typeof DEFAULT_TEXT_LIMITS, number>;

/** Applies the defaults; problems (named `checkout.textLimits.<name>`) go to `bad`. */
export function resolveTextLimits(
  given: Partial<TextLimits> | undefined,
  bad: (field: string, why: string) => void,
): TextLimits {
  const limits = { ...DEFAULT_TEXT_LIMITS };
  for (const [name, value] of Object.entries(given ?? {}) as Array<[keyof TextLimits, unknown]>) {
    if (value === undefined) continue;
    // Columns of the module's tables cap these two: a larger value could not be stored.
    const cap = name === 'orderId' || name === 'reference' ? 128 : 100_000;
    if (!(name in DEFAULT_TEXT_LIMITS)) bad(`textLimits.${name}`, 'is not a text limit');
    else if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > cap) {
      bad(`textLimits.${name}`, `must be an integer from 1 to ${cap}`);
    } else limits[name] = value as number;
  }
  return limits;
}

/** The rule of one limited field, naming its option. */
export function textRule(limits: TextLimits, name: keyof TextLimits, required = false): TextRule {
  return { max: limits[name], required, option: `checkout.textLimits.${name}` };
}
