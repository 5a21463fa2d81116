import { alpha2ToAlpha3 } from 'i18n-iso-countries';
import { messageOf } from '../core/events';
import { readText } from '../domain/text-bounds';
import { brazilianAddressRules, CLIENT } from '../gateway/dto/inputs';
import { isTaxDocument, normalizeDocument, obeys } from '../gateway/dto/validators';
import type { CreateInvoiceParams, InvoiceAddress } from '../gateway/types';
import { textRule } from '../options/checkout.options';
import type { AddressMapper, ResolvedCheckoutOptions, TextLimits } from '../options/checkout.options';
import type { FieldErrorCollector } from '../core/invoice.errors';
import type { CheckoutAddress, CheckoutOrder } from '../core/checkout.types';

/** The invoice's `client` (spec §4.2): document required for domestic customers, e-mail for international (A4). */
export function mapCustomer(
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
