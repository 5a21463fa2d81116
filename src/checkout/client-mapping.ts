import { isIP } from 'node:net';
import { getStates } from '@brazilian-utils/brazilian-utils';
import { isTaxDocument } from '../gateway/dto/validators';
import { alpha2ToAlpha3, alpha3ToAlpha2 } from 'i18n-iso-countries';
import { clip, readText, textProblem } from '../core/text-bounds';
import type { CreateInvoiceParams, InvoiceAddress } from '../gateway/types';
import type { AddressMapper } from '../options/checkout.options';
import type { FieldErrorCollector } from './errors';
import { textRule, type TextLimits } from './text-limits';
import type { CheckoutAddress, CheckoutCustomer, CheckoutOrder } from './types';

const NAME_FIELDS = ['name', 'first_name', 'last_name'] as const;

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
  else if (!NAME_FIELDS.some((field) => errors.has(`order.customer.${field}`))) {
    const field = typeof customer.name === 'string' ? 'name' : 'first_name';
    errors.add(
      `order.customer.${field}`,
      "is required (the payer's name: name, or first_name and last_name)",
    );
  }

  const rawDocument = text('document', 'document');
  const document = normalizeDocument(rawDocument);
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
export function isValidTaxDocument(document: string): boolean {
  return isTaxDocument(document);
}

export function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

const BRAZIL = 'BRA';
const UFS: ReadonlySet<string> = new Set(getStates().map((s) => s.code));

const DEFAULT_FIELD_NAMES: Record<keyof InvoiceAddress, string> = {
  street: 'order.shipping_address.address_1',
  number: 'order.shipping_address.number',
  district: 'order.shipping_address.district',
  city: 'order.shipping_address.city',
  state: 'order.shipping_address.province',
  zipcode: 'order.shipping_address.postal_code',
  country: 'order.shipping_address.country_code',
};

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
const INPUT_FIELDS = [
  'address_1',
  'address_2',
  'number',
  'district',
  'city',
  'province',
  'postal_code',
  'country_code',
] as const satisfies ReadonlyArray<keyof CheckoutAddress>;

/** The order's address mapped and checked (for Brazil a UF and an 8-digit CEP); only returned when whole. */
export function mapAddress(
  address: CheckoutAddress,
  order: CheckoutOrder,
  mapper: AddressMapper | undefined,
  errors: FieldErrorCollector,
  limits: TextLimits,
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
    mapper ? `order.shipping_address (mapped ${field})` : DEFAULT_FIELD_NAMES[field];
  let mapped: Partial<InvoiceAddress>;
  try {
    mapped = (mapper ?? defaultAddressMapper)(address, order);
  } catch (err) {
    errors.add(
      'order.shipping_address',
      `could not be mapped: ${err instanceof Error ? err.message : String(err)}`,
    );
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

  const country = toAlpha3(field('country'));
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

/** `br`/`BR`/`BRA` → `BRA`; `undefined` for anything that is not a country code. */
function toAlpha3(code: string): string | undefined {
  const upper = code.trim().toUpperCase();
  if (upper.length === 2) return alpha2ToAlpha3(upper);
  if (upper.length === 3 && alpha3ToAlpha2(upper)) return upper;
  return undefined;
}

/** What a person recognises an order by, kept on the record for the admin page. */
export interface RecognisedOrder {
  displayId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  /** Masked: `***.982.247-**` (CPF), `**.345.678/0001-**` (CNPJ). */
  customerDocument: string | null;
}

/** A CPF or CNPJ masked for display, the middle kept so a person can tell two customers apart; else `***`. */
export function maskDocument(document: string | undefined | null): string | null {
  if (!document) return null;
  if (/^\d{11}$/.test(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  if (/^[0-9A-Z]{14}$/.test(document)) {
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`;
  }
  return '***';
}

function present(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

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
