import { isIP } from 'node:net';
import { isTaxDocument } from '../gateway/dto/validators';
import type { CreateInvoiceParams } from '../gateway/types';
import { readText } from '../core/text-bounds';
import type { FieldErrorCollector } from './errors';
import { textRule, type TextLimits } from './text-limits';
import type { CheckoutCustomer, CheckoutOrder } from './types';

/** Where the payer's name may come from: `name` as given, else `first_name` and `last_name` joined. */
const NAME_FIELDS = ['name', 'first_name', 'last_name'] as const;

/**
 * The customer part of an invoice (`client`, spec §4.2): name (required, blank counts as absent), tax document
 * (required for domestic customers), e-mail (required for international ones, A4), phone and IP. Problems go to
 * `errors`, named by input field.
 */
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
    // Absent or only spaces: the payer's name is required text (a bank slip carries it), like any other.
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

/** CPF or CNPJ without punctuation, letters upper-cased (alphanumeric CNPJ); `''` when absent. */
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
