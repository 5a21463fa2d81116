import { randomBytes } from 'node:crypto';
import { cardExpired } from './create-request';
import type { JsonObject } from './http';
import type { CardTokenRecord, Store } from './store';
import { TEST_CARDS } from './constants';
import type { CardTokenInput, CardTokenResult } from './types';
import { FieldCheck } from './validation';

/**
 * Card tokenization, standing in for the service's client-side script (A12): the card number goes in, a token
 * comes out, and only brand, BIN, last four digits and expiry are kept. `4000000000000002` is always denied.
 * The security code is checked when given (required from the script's endpoint) and never kept.
 */
export function createCardToken(
  store: Store,
  input: CardTokenInput | JsonObject,
  now: Date,
  zone: string,
  options: { cvvRequired?: boolean } = {},
): CardTokenResult {
  const c = new FieldCheck();
  const body = input as JsonObject;
  const rawNumber = c.string(body, 'number', 'number', { required: true, max: 32 });
  const holder = c.string(body, 'holder', 'holder', { required: true, max: 120 });
  const expiry = c.string(body, 'expiry', 'expiry', { required: true, max: 5 });
  const cvv = c.string(body, 'cvv', 'cvv', { required: options.cvvRequired, max: 4 });
  if (typeof cvv === 'string' && !/^\d{3,4}$/.test(cvv)) c.fail('cvv', 'must be 3 or 4 digits');
  const number = typeof rawNumber === 'string' ? rawNumber.replace(/[\s-]/g, '') : '';
  if (typeof rawNumber === 'string' && (!/^\d{13,19}$/.test(number) || !luhn(number))) {
    c.fail('number', 'is not a valid card number');
  }
  if (typeof expiry === 'string') {
    const expired = cardExpired(expiry, now, zone);
    if (expired === null) c.fail('expiry', 'must be written MM/YY');
    else if (expired) c.fail('expiry', 'the card has expired');
  }
  c.done();
  const record: CardTokenRecord = {
    token: `tok_${randomBytes(16).toString('hex')}`,
    brand: brandOf(number),
    bin: number.slice(0, 6),
    last4: number.slice(-4),
    expiry: expiry as string,
    holder: holder as string,
    approved: number !== TEST_CARDS.denied,
  };
  store.saveCardToken(record);
  const { token, brand, bin, last4 } = record;
  return { token, brand, bin, last4, expiry: record.expiry };
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(n: string): string {
  if (
    /^(4011(78|79)|43(1274|8935)|45(1416|7393|763[12])|50(4175|6699|67[0-7][0-9]|9000)|627780|63(6297|6368)|650)/.test(
      n,
    )
  ) {
    return 'elo';
  }
  if (/^(606282|3841)/.test(n)) return 'hipercard';
  if (/^4/.test(n)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  if (/^3(0[0-5]|[68])/.test(n)) return 'diners';
  return 'unknown';
}
