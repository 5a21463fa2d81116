import { getStates, isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils';
import { MAX_INSTALLMENTS, PAYMENT_TYPE, PRODUCT_TYPE } from './constants';
import { addDays, localDay } from './dates';
import type { JsonObject } from './http';
import type { CardTokenRecord } from './store';
import type { ProductDiscountRule, SandboxAddress, SandboxInvoiceRecord, SandboxProduct } from './types';
import { FieldCheck, isEmail } from './validation';

/** A create-invoice request (§4.2) after validation: cents, normalized strings, the card token resolved. */
export interface CreateInput {
  client: SandboxInvoiceRecord['client'];
  ecommerce: { storeId: number; checkout: number } | null;
  type: number;
  productType: number | null;
  paymentId: string | null;
  referrer: string | null;
  dueDay: string | null;
  installments: number;
  orderUrl: string | null;
  storeUrl: string | null;
  webhookUrl: string | null;
  products: SandboxProduct[];
  invoiceDiscountCents: number;
  shippingCents: number;
  card: { record: CardTokenRecord; valid: string; holderName: string } | null;
}

const ADDRESS_FIELDS: Array<keyof SandboxAddress> = [
  'street',
  'number',
  'district',
  'city',
  'state',
  'zipcode',
  'country',
];
const UF = new Set<string>(getStates().map((s) => s.code));

/**
 * Validates a create body (§4.2, A3, A4) and answers the input, or throws one 422 naming every bad field.
 * Today is the calendar day in `zone`, the service's time zone (A2); `cardToken` resolves tokens the sandbox issued;
 * a product's discount takes off what `rule` says (A1).
 */
export function parseCreate(
  body: JsonObject,
  now: Date,
  zone: string,
  cardToken: (token: string) => CardTokenRecord | undefined,
  rule: ProductDiscountRule,
): CreateInput {
  const c = new FieldCheck();
  const client = c.object(body, 'client', 'client', true) ?? {};
  const payment = c.object(body, 'payment', 'payment', true) ?? {};
  const type = c.integer(payment, 'type', 'payment.type', { required: true });
  if (typeof type === 'number' && !Object.values(PAYMENT_TYPE).includes(type as 1)) {
    c.fail('payment.type', 'must be 1 (PIX), 2 (bank slip) or 3 (card)');
  }
  const productType = c.integer(payment, 'product_type', 'payment.product_type');
  if (typeof productType === 'number' && !Object.values(PRODUCT_TYPE).includes(productType as 1)) {
    c.fail('payment.product_type', 'must be 1 (physical) or 2 (digital)');
  }
  const address = parseAddress(c, client, productType === PRODUCT_TYPE.physical);
  const international = typeof address?.country === 'string' && address.country.toUpperCase() !== 'BRA';
  const document = c.string(client, 'document', 'client.document', { required: !international, max: 32 });
  if (typeof document === 'string') checkDocument(c, document);
  const email = c.string(client, 'email', 'client.email', { required: international, max: 254 });
  if (typeof email === 'string' && !isEmail(email)) c.fail('client.email', 'must be an e-mail address');
  const name = c.string(client, 'name', 'client.name', { max: 200 });
  const phone = c.string(client, 'phone', 'client.phone', { max: 32 });
  const ip = c.ip(client, 'ip', 'client.ip');

  const ecommerce = c.object(body, 'ecommerce', 'ecommerce');
  const storeId = ecommerce
    ? c.integer(ecommerce, 'store_id', 'ecommerce.store_id', { required: true })
    : null;
  const checkout = ecommerce
    ? c.integer(ecommerce, 'checkout', 'ecommerce.checkout', { required: true })
    : null;

  const today = localDay(now, zone);
  const dueDay = c.day(payment, 'due_at', 'payment.due_at');
  if (typeof dueDay === 'string' && dueDay < today)
    c.fail('payment.due_at', `must not be before today (${today})`);
  const installments = c.integer(payment, 'installments', 'payment.installments', {
    min: 1,
    max: MAX_INSTALLMENTS,
  });
  if (typeof installments === 'number' && installments > 1 && type !== PAYMENT_TYPE.card) {
    c.fail('payment.installments', 'must be 1 unless paying by card');
  }
  const products = parseProducts(c, payment, rule);
  const invoiceDiscount = c.money(payment, 'discount', 'payment.discount') ?? 0;
  const shipping = c.object(body, 'shipping', 'shipping');
  const shippingCents =
    (shipping ? c.money(shipping, 'amount', 'shipping.amount', { required: true }) : 0) ?? 0;
  const card = type === PAYMENT_TYPE.card ? parseCard(c, payment, now, zone, cardToken) : null;

  const input: CreateInput = {
    client: {
      name: name ?? null,
      document: document ?? null,
      email: email ?? null,
      phone: phone ?? null,
      ip: ip ?? null,
      address: address ?? null,
    },
    ecommerce: typeof storeId === 'number' && typeof checkout === 'number' ? { storeId, checkout } : null,
    type: type ?? 0,
    productType: productType ?? null,
    paymentId: c.string(payment, 'id', 'payment.id', { max: 128 }) ?? null,
    referrer: c.string(payment, 'referrer', 'payment.referrer', { max: 128 }) ?? null,
    dueDay: dueDay ?? null,
    installments: installments ?? 1,
    orderUrl: c.url(payment, 'order_url', 'payment.order_url') ?? null,
    storeUrl: c.url(payment, 'store_url', 'payment.store_url') ?? null,
    webhookUrl: c.url(payment, 'webhook', 'payment.webhook') ?? null,
    products,
    invoiceDiscountCents: invoiceDiscount,
    shippingCents,
    card,
  };
  c.done();
  return input;
}

function parseAddress(c: FieldCheck, client: JsonObject, required: boolean): Partial<SandboxAddress> | null {
  const raw = c.object(client, 'address', 'client.address', required);
  if (!raw) return null;
  const out: Partial<SandboxAddress> = {};
  for (const field of ADDRESS_FIELDS) {
    const v = c.string(raw, field, `client.address.${field}`, { required, max: 200 });
    if (typeof v === 'string') out[field] = v;
  }
  const country = out.country?.toUpperCase();
  if (out.country !== undefined && !/^[A-Z]{3}$/.test(out.country)) {
    c.fail('client.address.country', 'must be a three-letter country code (ISO 3166-1 alpha-3)');
  }
  if (out.state !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(out.state)) c.fail('client.address.state', 'must be two letters');
    else if ((country ?? 'BRA') === 'BRA' && !UF.has(out.state.toUpperCase())) {
      c.fail('client.address.state', 'must be a Brazilian state (UF)');
    }
  }
  if (out.zipcode !== undefined) {
    if (!/^\d+$/.test(out.zipcode)) c.fail('client.address.zipcode', 'must be digits only');
    else if ((country ?? 'BRA') === 'BRA' && out.zipcode.length !== 8) {
      c.fail('client.address.zipcode', 'must have 8 digits (CEP)');
    }
  }
  return out;
}

function checkDocument(c: FieldCheck, document: string): void {
  if (/^\d{11}$/.test(document)) {
    if (!isValidCpf(document)) c.fail('client.document', 'is not a valid CPF (check digits)');
  } else if (/^[0-9A-Z]{12}\d{2}$/.test(document)) {
    if (!isValidCnpj(document, { version: 2 }))
      c.fail('client.document', 'is not a valid CNPJ (check digits)');
  } else {
    c.fail(
      'client.document',
      'must be a CPF (11 digits) or a CNPJ (14 characters, digits or uppercase letters)',
    );
  }
}

/** The cents a product's `discount` takes off its line: itself, or itself on each unit (A1). */
export function lineDiscountCents(product: SandboxProduct, rule: ProductDiscountRule): number {
  return rule === 'unit' ? product.discountCents * product.qnt : product.discountCents;
}

function parseProducts(c: FieldCheck, payment: JsonObject, rule: ProductDiscountRule): SandboxProduct[] {
  const raw = payment.products;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return c.fail('payment.products', 'must be an array') ?? [];
  const out: SandboxProduct[] = [];
  raw.forEach((item: unknown, i) => {
    const path = `payment.products[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return c.fail(path, 'must be an object');
    const p = item as JsonObject;
    const id = typeof p.id === 'number' ? String(p.id) : c.string(p, 'id', `${path}.id`, { max: 128 });
    const title = c.string(p, 'title', `${path}.title`, { required: true, max: 250 });
    const image = c.url(p, 'image', `${path}.image`);
    const qnt = c.integer(p, 'qnt', `${path}.qnt`, { required: true, min: 1 });
    const amount = c.money(p, 'amount', `${path}.amount`, { required: true });
    const discount = c.money(p, 'discount', `${path}.discount`) ?? 0;
    if (typeof amount === 'number' && typeof qnt === 'number') {
      // Each unit's discount is bounded by one unit's price, the line's by the line's.
      const [most, what] =
        rule === 'unit' ? [amount, 'amount (it is per unit)'] : [amount * qnt, 'amount × qnt'];
      if (discount > most) c.fail(`${path}.discount`, `must not exceed ${what}`);
    }
    out.push({
      id: id ?? String(i + 1),
      title: title ?? '',
      image: image ?? '',
      qnt: qnt ?? 0,
      amountCents: amount ?? 0,
      discountCents: discount,
    });
  });
  return out;
}

function parseCard(
  c: FieldCheck,
  payment: JsonObject,
  now: Date,
  zone: string,
  cardToken: (token: string) => CardTokenRecord | undefined,
): CreateInput['card'] {
  const card = c.object(payment, 'card', 'payment.card', true);
  if (!card) return null;
  const token = c.string(card, 'token', 'payment.card.token', { required: true, max: 256 });
  const record = typeof token === 'string' ? cardToken(token) : undefined;
  if (typeof token === 'string' && !record)
    c.fail('payment.card.token', 'is not a card token issued by the service');
  const valid = c.string(card, 'valid', 'payment.card.valid', { required: true, max: 5 });
  if (typeof valid === 'string') {
    const expired = cardExpired(valid, now, zone);
    if (expired === null) c.fail('payment.card.valid', 'must be the card expiry written MM/YY');
    else if (expired) c.fail('payment.card.valid', 'the card has expired');
  }
  const holder = c.object(card, 'holder', 'payment.card.holder', true);
  const holderName = holder
    ? c.string(holder, 'name', 'payment.card.holder.name', { required: true, max: 120 })
    : null;
  if (!record || typeof valid !== 'string' || typeof holderName !== 'string') return null;
  return { record, valid, holderName };
}

/** Whether `MM/YY` lies before the current month in `zone`, the service's; null when malformed. */
export function cardExpired(value: string, now: Date, zone: string): boolean | null {
  const m = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(value);
  if (!m) return null;
  const expiry = `20${m[2]}-${m[1]}`;
  return expiry < localDay(now, zone).slice(0, 7);
}

/** The due day when the request sends none: `days` after today in `zone`. */
export function defaultDueDay(now: Date, zone: string, days: number): string {
  return addDays(localDay(now, zone), days);
}
