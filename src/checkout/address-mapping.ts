import { getStates } from '@brazilian-utils/brazilian-utils';
import { alpha2ToAlpha3, alpha3ToAlpha2 } from 'i18n-iso-countries';
import { readText, textProblem } from '../core/text-bounds';
import type { InvoiceAddress } from '../gateway/types';
import type { AddressMapper } from '../options/checkout.options';
import type { FieldErrorCollector } from './errors';
import { textRule, type TextLimits } from './text-limits';
import type { CheckoutAddress, CheckoutOrder } from './types';

const BRAZIL = 'BRA';
const UFS: ReadonlySet<string> = new Set(getStates().map((s) => s.code));

/** Input field of each `client.address` field under the default mapping, for error messages. */
const DEFAULT_FIELD_NAMES: Record<keyof InvoiceAddress, string> = {
  street: 'order.shipping_address.address_1',
  number: 'order.shipping_address.number',
  district: 'order.shipping_address.district',
  city: 'order.shipping_address.city',
  state: 'order.shipping_address.province',
  zipcode: 'order.shipping_address.postal_code',
  country: 'order.shipping_address.country_code',
};

/**
 * The default mapping of a Medusa-style address: street from `address_1`; number from `number`, else the number
 * after the last comma of `address_1` ("Rua das Flores, 123"), else `S/N` (no number, as Brazilian addresses
 * write it); district from `district`, else `address_2`.
 */
export const defaultAddressMapper: AddressMapper = (address: CheckoutAddress) => {
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

/** The input fields of a Medusa-style address, checked (type, control characters, length) before any mapping. */
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

/**
 * Maps and checks the order's address: its text fields bounded (A17), every field present, the country as a three-letter code, and for Brazil a
 * UF among the 27 and an 8-digit CEP. Problems go to `errors`; the address is returned only when it is whole.
 */
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
export function toAlpha3(code: string): string | undefined {
  const upper = code.trim().toUpperCase();
  if (upper.length === 2) return alpha2ToAlpha3(upper);
  if (upper.length === 3 && alpha3ToAlpha2(upper)) return upper;
  return undefined;
}
