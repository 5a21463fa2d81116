import { InvoiceStatusCode } from '../domain/status-table';
import { GatewayResponseError } from './errors';
import {
  asBool,
  asInt,
  asRecord,
  asText,
  exceedsJsonDepth,
  firstTextAt,
  type JsonRecord,
  MAX_JSON_DEPTH,
  valueAt,
} from './json';
import { PayloadReader } from './payload.reader';
import type { Invoice, Page, PaymentMethod } from './types';
import { DEFAULT_WIRE_PROFILE, type WireCodes, type WireListProfile, type WireProfile } from './wire-profile';

// The service's JSON read strictly (identifiers, status, the amounts decided on; A1 says which are only shown): an
// invoice in either shape, a page of a list.

/** A list answer read as the profile says (A7); `pages` derived from `total` when not sent. */
export function readPage<Item>(
  r: PayloadReader,
  body: unknown,
  shape: WireListProfile,
  itemsPath: string,
  asked: { page: number; limit: number },
  readItem: (item: unknown, path: string) => Item,
): Page<Item> {
  const top = r.record(body, 'body');
  const list = valueAt(top, itemsPath);
  if (!Array.isArray(list)) r.fail(itemsPath || 'body', 'not a list');
  const counter = (path: string | null): number | null => {
    if (path === null) return null;
    const value = valueAt(top, path);
    if (value === undefined || value === null) return null;
    return asInt(value) ?? r.fail(path, 'not an integer');
  };
  const limit = counter(shape.limit) ?? asked.limit;
  const total = counter(shape.total);
  let pages = counter(shape.pages);
  if (pages === null && total !== null) pages = limit > 0 ? Math.ceil(total / limit) : 0;
  return {
    items: list.map((item, i) => readItem(item, `${itemsPath}[${i}]`)),
    page: counter(shape.page) ?? asked.page,
    limit,
    total,
    pages,
  };
}

/** Where each field sits: [current shape (§2.1), legacy shape (§2.2)], dotted paths. */
const PATHS = {
  referrer: ['referrer', 'referencia'],
  currency: ['currency', 'moeda'],
  card: ['card', 'cartao'],
  cardKeys: [
    ['brand', 'last4', 'number', 'bin', 'tid', 'token'],
    ['bandeira', 'numero', 'bin', 'tid', 'token'],
  ],
  brand: ['brand', 'bandeira'],
  last4: [['last4', 'number'], ['numero']],
  gross: ['amount.gross', 'valores.bruto'],
  net: ['amount.net', 'valores.liquido'],
  fees: ['amount.fees', 'valores.taxas'],
  discount: ['amount.discount', 'valores.desconto'],
  shipping: ['amount.shipping', null],
  paid: ['payment.total', 'pagamento.total'],
  installments: ['installments', 'parcelas'],
  dueDate: ['due_at.day', 'vencimento.dia'],
  originalDueDate: ['due_at.original', 'vencimento.original'],
  createdAt: ['created_at', 'criacao'],
  paymentUrl: [['links.url'], ['externo.url', 'externo.fatura']],
  billetUrl: [
    ['billet.download', 'billet.image'],
    ['billet.download', 'billet.image', 'externo.bankSlipUrl'],
  ],
} as const;
type Side<I extends 0 | 1> = { [K in keyof typeof PATHS]: (typeof PATHS)[K][I] };
const side = <I extends 0 | 1>(i: I) =>
  Object.fromEntries(Object.entries(PATHS).map(([key, paths]) => [key, paths[i]])) as Side<I>;
export const SHAPES = { current: side(0), legacy: side(1) };

/**
 * How each amount is read (A1). `exact`: decided on (the order's total, what was paid), so exactly cents or the invoice
 * is refused. `shown`: only displayed, so a negative one is read and one finer than a cent is unknown (`null`).
 */
const AMOUNTS = {
  gross: 'exact',
  net: 'shown',
  fees: 'shown',
  discount: 'shown',
  shipping: 'shown',
  paid: 'exact',
} as const;
/** Keys only the legacy shape has: a bare invoice holding one is of that shape. */
const LEGACY_KEYS = ['moeda', 'vencimento', 'valores', 'cartao', 'referencia', 'criacao', 'pagamento'];
/** The card objects of either shape, and the card data redacted wherever an invoice is kept. */
const CARD_BLOCKS: readonly string[] = PATHS.card;
const CARD_SECRETS = ['number', 'numero', 'token', 'bin'];
const METHOD_NAMES: Record<string, PaymentMethod> = {
  pix: 'pix',
  billet: 'billet',
  boleto: 'billet',
  bank_slip: 'billet',
  card: 'card',
  credit_card: 'card',
};

/**
 * Either response shape, in its envelope or bare → `Invoice` (`raw`: card secrets redacted). Method: named, else card
 * data → `card`, a slip line alone → `billet`, a PIX payload alone → `pix`, both → `null` (the checkout's ask decides).
 */
export function normalizeInvoice(
  payload: unknown,
  operation = 'normalizeInvoice',
  codes: WireCodes = DEFAULT_WIRE_PROFILE.codes,
): Invoice {
  return readInvoiceBody(new PayloadReader(operation), payload, codes);
}

/** {@link normalizeInvoice} with the reader of the whole answer, which keeps the amounts read as unknown. */
function readInvoiceBody(r: PayloadReader, payload: unknown, codes: WireCodes): Invoice {
  const top = r.record(payload, 'payload');
  if (exceedsJsonDepth(top)) r.fail('payload', `nested deeper than ${MAX_JSON_DEPTH} levels`);
  const version = asText(asRecord(top.api)?.version);
  const { inv, prefix: p, shape } = invoiceIn(top);
  const at = SHAPES[shape];
  const amount = (key: keyof typeof AMOUNTS) => {
    const path = at[key];
    if (path === null) return null;
    const value = valueAt(inv, path);
    return AMOUNTS[key] === 'exact' ? r.money(value, p + path) : r.displayMoney(value, p + path, path);
  };
  const card = asRecord(inv[at.card]);
  const hasCard = !!card && at.cardKeys.some((key) => asText(card[key]) !== null);
  const billet = someOf({
    line: asText(valueAt(inv, 'billet.line')),
    barcode: asText(valueAt(inv, 'billet.barcode')),
    url: firstTextAt(inv, at.billetUrl),
  });
  const pix = someOf({
    image: asText(valueAt(inv, 'pix.image')),
    payload: asText(valueAt(inv, 'pix.payload')),
    status: asText(valueAt(inv, 'pix.status')),
    endToEndId: asText(valueAt(inv, 'pix.ete.id')),
  });
  return {
    id: r.requiredText(inv.id, `${p}id`),
    uuid: asText(inv.uuid),
    invoiceId: r.requiredText(inv.invoice_id, `${p}invoice_id`),
    token: asText(inv.token),
    referrer: asText(inv[at.referrer]),
    currency: asText(inv[at.currency]),
    status: statusOf(r, inv.status, `${p}status`),
    method: explicitMethod(inv, codes.paymentTypes) ?? methodOf(hasCard, billet, pix),
    amounts: Object.fromEntries(
      (Object.keys(AMOUNTS) as Array<keyof typeof AMOUNTS>).map((key) => [`${key}Cents`, amount(key)]),
    ) as Invoice['amounts'],
    pix,
    billet,
    card: hasCard
      ? {
          brand: asText(card[at.brand]),
          last4: at.last4.reduce<string | null>((f, k) => f ?? lastFour(card[k]), null),
        }
      : null,
    installments: asInt(inv[at.installments]),
    dueDate: asDay(valueAt(inv, at.dueDate)),
    originalDueDate: asDay(valueAt(inv, at.originalDueDate)),
    createdAt: asText(inv[at.createdAt]),
    paymentUrl: firstTextAt(inv, at.paymentUrl),
    refunds: refundsOf(r, inv.refunds, `${p}refunds`),
    source: { shape, version },
    raw: redactCardData(top),
  };
}

/** The invoice of a body in either shape: in its `fatura` (legacy) or `invoice` envelope, or bare. */
export function invoiceIn(top: JsonRecord): { inv: JsonRecord; prefix: string; shape: 'current' | 'legacy' } {
  const fatura = asRecord(top.fatura);
  if (fatura) return { inv: fatura, prefix: 'fatura.', shape: 'legacy' };
  const invoice = asRecord(top.invoice);
  if (invoice) return { inv: invoice, prefix: 'invoice.', shape: 'current' };
  const legacy = LEGACY_KEYS.some((key) => key in top);
  return { inv: top, prefix: '', shape: legacy ? 'legacy' : 'current' };
}

/** The invoice in a write's answer. */
export function invoiceAnswer(r: PayloadReader, answer: { body: unknown }, profile: WireProfile): Invoice {
  return readInvoiceBody(r, answer.body, profile.codes);
}

/** An invoice in a list answer: a problem is named by its place in the list. */
export function readInvoice(r: PayloadReader, item: unknown, at: string, profile: WireProfile): Invoice {
  try {
    return readInvoiceBody(r, item, profile.codes);
  } catch (err) {
    if (err instanceof GatewayResponseError) r.fail(at, err.detail, err.implausibleAmount);
    throw err;
  }
}

/** The `YYYY-MM-DD` day of `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`. */
function asDay(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T].*)?$/.exec(value.trim());
  return m ? m[1] : null;
}

/** `"************1111"` → `"1111"`. */
function lastFour(value: unknown): string | null {
  const text = asText(value);
  if (!text) return null;
  const m = /(\d{4})$/.exec(text.trim());
  return m ? m[1] : null;
}

function someOf<T extends Record<string, string | null>>(data: T): T | null {
  return Object.values(data).some((v) => v !== null) ? data : null;
}

/** `status`; a cancellation answer without a code (only its text) reads as 6. */
export function statusOf(r: PayloadReader, value: unknown, path: string): Invoice['status'] {
  const status = r.record(value, path);
  const text = asText(status.text);
  let code = asInt(status.code);
  if (code === null) {
    if (status.code !== undefined && status.code !== null) r.fail(`${path}.code`, 'not an integer');
    const word = text?.trim().toLowerCase();
    if (word !== 'canceled' && word !== 'cancelled') r.fail(`${path}.code`, 'missing');
    code = InvoiceStatusCode.Canceled;
  }
  return {
    code,
    text: text ?? '',
    subText: asText(status.sub_text),
    title: asText(status.title),
    description: asText(status.description),
  };
}

function methodOf(card: boolean, billet: Invoice['billet'], pix: Invoice['pix']): PaymentMethod | null {
  if (card) return 'card';
  const hasLine = !!billet?.line;
  const hasPix = !!pix?.payload;
  if (hasLine === hasPix) return null;
  return hasLine ? 'billet' : 'pix';
}

/** The method an invoice names itself, by `payment.type` code or by name. */
function explicitMethod(inv: JsonRecord, codes: WireCodes['paymentTypes']): PaymentMethod | null {
  for (const value of [inv.payment_type, asRecord(inv.payment)?.type, inv.method]) {
    const code = asInt(value);
    const found = (Object.keys(codes) as PaymentMethod[]).find((m) => codes[m] === code);
    if (code !== null && found) return found;
    const name = asText(value)?.trim().toLowerCase();
    if (name && METHOD_NAMES[name]) return METHOD_NAMES[name];
  }
  return null;
}

function refundsOf(r: PayloadReader, value: unknown, path: string): Invoice['refunds'] {
  const refunds = asRecord(value);
  if (!refunds) return { possible: null, totalCents: null, date: null };
  return {
    // The spec spells it `possbile`; a corrected `possible` is read too.
    possible: asBool(refunds.possbile) ?? asBool(refunds.possible),
    totalCents: r.money(refunds.total, `${path}.total`) ?? r.money(refunds.brl, `${path}.brl`),
    date: asText(refunds.data),
  };
}

/** A copy of `value` with `number`, `numero`, `token` and `bin` redacted inside every `card`/`cartao` object. */
export function redactCardData(value: unknown, inCard = false, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redactCardData(v, inCard, depth + 1));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const secret = inCard && CARD_SECRETS.includes(key) && v !== null && v !== undefined;
    out[key] = secret ? '[redacted]' : redactCardData(v, CARD_BLOCKS.includes(key), depth + 1);
  }
  return out;
}
