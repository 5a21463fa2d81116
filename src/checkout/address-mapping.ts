import { alpha2ToAlpha3 } from 'i18n-iso-countries';
import { readText } from '../domain/text-and-days';
import { brazilianAddressRules, CLIENT } from '../gateway/dto/inputs';
import type { InvoiceAddress } from '../gateway/types';
import { textRule } from '../options/checkout.options';
import type { AddressMapper, ResolvedCheckoutOptions } from '../options/checkout.options';
import { messageOf } from '../core/events';
import type { FieldErrorCollector } from '../core/invoice.errors';
import type { CheckoutAddress, CheckoutOrder } from '../core/checkout.types';

/** The input field of each mapped field whose name differs; every input field is checked before any mapping. */
const RENAMED = { street: 'address_1', state: 'province', zipcode: 'postal_code', country: 'country_code' };
const INPUT_FIELDS = [...Object.values(RENAMED), 'address_2', 'number', 'district', 'city'];

/** The default {@link AddressMapper}, as docs/checkout.md describes (number after the last comma, else `S/N`). */
const defaultAddressMapper: AddressMapper = (address) => {
  let street = address.address_1?.trim() ?? '';
  let number = address.number?.trim() ?? '';
  const split = number ? null : /^(.*\S)\s*,\s*(\d+[A-Za-z]?)$/.exec(street);
  if (split) [, street, number] = split;
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

/** The order's address mapped (`br` → `BRA`, CEP digits), checked by the gateway's rules; only returned when whole. */
export function mapAddress(
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
  const input = address as Record<string, unknown>;
  for (const key of INPUT_FIELDS) readText(errors, `order.shipping_address.${key}`, input[key], rule);
  if (errors.count() > given) return undefined;
  const renamed: Record<string, string> = RENAMED;
  const name = (field: string) =>
    mapper ? `order.shipping_address (mapped ${field})` : `order.shipping_address.${renamed[field] ?? field}`;
  let mapped: Partial<InvoiceAddress>;
  try {
    mapped = (mapper ?? defaultAddressMapper)(address, order);
  } catch (err) {
    errors.add('order.shipping_address', `could not be mapped: ${messageOf(err)}`);
    return undefined;
  }
  const out = {} as InvoiceAddress;
  for (const key of ['street', 'number', 'district', 'city', 'state', 'zipcode', 'country'] as const) {
    out[key] = readText(errors, name(key), mapped?.[key], rule) ?? '';
  }
  const code = out.country.toUpperCase();
  out.country = code.length === 2 ? (alpha2ToAlpha3(code) ?? '') : code;
  out.state = out.state.toUpperCase();
  const zip = out.zipcode.replace(out.country === 'BRA' ? /[.\s]/g : /[\s-]/g, '');
  out.zipcode = out.country === 'BRA' ? zip.replace(/^(\d{5})-/, '$1') : zip.toUpperCase();
  // The gateway's rules, Brazil's (UF, CEP: among those of a whole invoice) first; a field's first refusal is named.
  const refuse = (key: string, problem: string) => errors.has(name(key)) || errors.add(name(key), problem);
  brazilianAddressRules(out, (path, problem) => refuse(path.replace('client.address.', ''), problem));
  CLIENT.address(out, '', refuse, {});
  return errors.count() === given ? out : undefined;
}
