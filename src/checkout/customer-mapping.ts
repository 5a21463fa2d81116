import { isIP } from 'node:net';
import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import type { CreateInvoiceParams } from '../gateway/types';
import type { FieldErrorCollector } from './errors';
import type { CheckoutOrder } from './types';

/**
 * The customer part of an invoice (`client`, spec §4.2): name, tax document (required for domestic customers),
 * e-mail (required for international ones, A4), phone and IP. Problems go to `errors`, named by input field.
 */
export function mapCustomer(
  order: CheckoutOrder,
  international: boolean,
  errors: FieldErrorCollector,
): CreateInvoiceParams['client'] {
  const customer = order.customer ?? {};
  const client: CreateInvoiceParams['client'] = {};
  const name =
    customer.name?.trim() || [customer.first_name, customer.last_name].filter(nonEmpty).join(' ').trim();
  if (name) client.name = name;

  const document = normalizeDocument(customer.document);
  if (document) {
    if (!isValidTaxDocument(document)) errors.add('order.customer.document', 'is not a valid CPF or CNPJ');
    client.document = document;
  } else if (!international) {
    errors.add('order.customer.document', 'is required for Brazilian customers (CPF or CNPJ)');
  }

  const email = customer.email?.trim();
  if (email) {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      errors.add('order.customer.email', 'is not an e-mail address');
    client.email = email;
  } else if (international) {
    errors.add('order.customer.email', 'is required for international customers');
  }

  if (nonEmpty(customer.phone)) {
    const digits = customer.phone.replace(/\D/g, '');
    if (digits.length < 8 || digits.length > 15)
      errors.add('order.customer.phone', 'must have 8 to 15 digits');
    client.phone = digits;
  }
  if (nonEmpty(order.customer_ip)) {
    if (!isIP(order.customer_ip.trim())) errors.add('order.customer_ip', 'is not an IP address');
    client.ip = order.customer_ip.trim();
  }
  return client;
}

/** CPF or CNPJ without punctuation, letters upper-cased (alphanumeric CNPJ); `''` when absent. */
export function normalizeDocument(value: unknown): string {
  return typeof value === 'string' ? value.replace(/[\s./-]/g, '').toUpperCase() : '';
}

/** An 11-digit CPF or a 14-character CNPJ (numeric or alphanumeric) whose check digits are right. */
export function isValidTaxDocument(document: string): boolean {
  if (/^\d{11}$/.test(document)) return isValidCpf(document);
  if (/^[0-9A-Z]{12}\d{2}$/.test(document)) return isValidCnpj(document, { version: 2 });
  return false;
}

export function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}
