import { InvoiceStatusCode } from './status';
import type { Invoice, PaymentMethod } from './types';
import type { WireCodes } from './wire-profile';
import {
  asBool,
  asDay,
  asInt,
  asRecord,
  asText,
  exceedsJsonDepth,
  JsonRecord,
  lastFour,
  MAX_JSON_DEPTH,
  PayloadReader,
} from './payload.reader';

/**
 * The one invoice normalizer: both response shapes (current §2.1, legacy §2.2) → `Invoice`.
 *
 * Accepts a whole envelope (`{ ..., invoice }` or `{ ..., fatura }`, a webhook delivery body included) or the bare
 * invoice/fatura object. Rules where the spec is silent:
 * - `uuid` is always a string (the legacy shape sends a number).
 * - A status without `code` whose `text` is `canceled` (the cancellation response) reads as code 6; any other
 *   status without an integer code is unreadable.
 * - Method: an explicit field (`payment_type`, `payment.type` or `method`: a `codes.paymentTypes` number or a name)
 *   wins; else any card data (brand, last4, number, bin, tid or token) → `card`; else a bank-slip line alone →
 *   `billet`, a PIX payload alone → `pix`; both (a bank slip carries PIX data, A3, and a PIX answer may carry a slip
 *   block, §2.1) → `null`: what the checkout asked for decides (`createInvoice` sets it; records keep it).
 * - Card: brand and last four digits only (`last4`, else the last four digits of the masked number).
 * - Bank-slip URL: `billet.download`, else `billet.image`, else (legacy) `externo.bankSlipUrl`.
 * - `raw` is the payload with the card's number, token and bin replaced by `[redacted]`: it gets stored.
 *
 * Throws `GatewayResponseError` naming the field when `id`, `invoice_id`, the status or an amount is unreadable.
 * @param operation names the caller in that error (the client passes its method name).
 */
export function normalizeInvoice(
  payload: unknown,
  operation = 'normalizeInvoice',
  options: { codes?: WireCodes } = {},
): Invoice {
  const r = new PayloadReader(operation);
  const codes = options.codes?.paymentTypes ?? DEFAULT_PAYMENT_CODES;
  const top = r.record(payload, 'payload');
  // Checked first: the copy and the readers below walk the payload.
  if (exceedsJsonDepth(top)) r.fail('payload', `nested deeper than ${MAX_JSON_DEPTH} levels`);
  const version = asText(asRecord(top.api)?.version);
  const raw = scrubCardData(top);
  const fatura = asRecord(top.fatura);
  if (fatura) return fromLegacy(r, fatura, 'fatura.', version, raw, codes);
  const invoice = asRecord(top.invoice);
  if (invoice) return fromCurrent(r, invoice, 'invoice.', version, raw, codes);
  if (LEGACY_KEYS.some((key) => key in top)) return fromLegacy(r, top, '', version, raw, codes);
  return fromCurrent(r, top, '', version, raw, codes);
}

type PaymentCodes = WireCodes['paymentTypes'];
const DEFAULT_PAYMENT_CODES: PaymentCodes = { pix: 1, billet: 2, card: 3 };
const METHOD_NAMES: Record<string, PaymentMethod> = {
  pix: 'pix',
  billet: 'billet',
  boleto: 'billet',
  bank_slip: 'billet',
  card: 'card',
  credit_card: 'card',
};

const LEGACY_KEYS = ['moeda', 'vencimento', 'valores', 'cartao', 'referencia', 'criacao', 'pagamento'];
const CARD_SECRETS = ['number', 'numero', 'token', 'bin'];

function fromCurrent(
  r: PayloadReader,
  inv: JsonRecord,
  p: string,
  version: string | null,
  raw: unknown,
  codes: PaymentCodes,
): Invoice {
  const card = asRecord(inv.card);
  const billet = asRecord(inv.billet);
  const amount = asRecord(inv.amount) ?? {};
  const dueAt = asRecord(inv.due_at);
  const payment = asRecord(inv.payment);
  const billetData = billetOf(
    billet?.line,
    billet?.barcode,
    asText(billet?.download) ?? asText(billet?.image),
  );
  return {
    ...identity(r, inv, p),
    referrer: asText(inv.referrer),
    currency: asText(inv.currency),
    status: statusOf(r, inv.status, `${p}status`),
    method:
      explicitMethod(inv, codes) ??
      methodOf(hasCardData(card, ['brand', 'last4', 'number', 'bin', 'tid', 'token']), billetData, inv.pix),
    amounts: {
      grossCents: r.money(amount.gross, `${p}amount.gross`),
      netCents: r.money(amount.net, `${p}amount.net`),
      feesCents: r.money(amount.fees, `${p}amount.fees`),
      discountCents: r.money(amount.discount, `${p}amount.discount`),
      shippingCents: r.money(amount.shipping, `${p}amount.shipping`),
      paidCents: r.money(payment?.total, `${p}payment.total`),
    },
    pix: pixOf(inv.pix),
    billet: billetData,
    card: cardOf(card, card?.brand, lastFour(card?.last4) ?? lastFour(card?.number), [
      'brand',
      'last4',
      'number',
      'bin',
      'tid',
      'token',
    ]),
    installments: asInt(inv.installments),
    dueDate: asDay(dueAt?.day),
    originalDueDate: asDay(dueAt?.original),
    createdAt: asText(inv.created_at),
    paymentUrl: asText(asRecord(inv.links)?.url),
    refunds: refundsOf(r, inv.refunds, `${p}refunds`),
    source: { shape: 'current', version },
    raw,
  };
}

function fromLegacy(
  r: PayloadReader,
  fat: JsonRecord,
  p: string,
  version: string | null,
  raw: unknown,
  codes: PaymentCodes,
): Invoice {
  const cartao = asRecord(fat.cartao);
  const billet = asRecord(fat.billet);
  const externo = asRecord(fat.externo);
  const valores = asRecord(fat.valores) ?? {};
  const vencimento = asRecord(fat.vencimento);
  const pagamento = asRecord(fat.pagamento);
  const url = asText(billet?.download) ?? asText(billet?.image) ?? asText(externo?.bankSlipUrl);
  const billetData = billetOf(billet?.line, billet?.barcode, url);
  const cardKeys = ['bandeira', 'numero', 'bin', 'tid', 'token'];
  return {
    ...identity(r, fat, p),
    referrer: asText(fat.referencia),
    currency: asText(fat.moeda),
    status: statusOf(r, fat.status, `${p}status`),
    method: explicitMethod(fat, codes) ?? methodOf(hasCardData(cartao, cardKeys), billetData, fat.pix),
    amounts: {
      grossCents: r.money(valores.bruto, `${p}valores.bruto`),
      netCents: r.money(valores.liquido, `${p}valores.liquido`),
      feesCents: r.money(valores.taxas, `${p}valores.taxas`),
      discountCents: r.money(valores.desconto, `${p}valores.desconto`),
      shippingCents: null,
      paidCents: r.money(pagamento?.total, `${p}pagamento.total`),
    },
    pix: pixOf(fat.pix),
    billet: billetData,
    card: cardOf(cartao, cartao?.bandeira, lastFour(cartao?.numero), cardKeys),
    installments: asInt(fat.parcelas),
    dueDate: asDay(vencimento?.dia),
    originalDueDate: asDay(vencimento?.original),
    createdAt: asText(fat.criacao),
    paymentUrl: asText(externo?.url) ?? asText(externo?.fatura),
    refunds: refundsOf(r, fat.refunds, `${p}refunds`),
    source: { shape: 'legacy', version },
    raw,
  };
}

function identity(
  r: PayloadReader,
  inv: JsonRecord,
  p: string,
): Pick<Invoice, 'id' | 'uuid' | 'invoiceId' | 'token'> {
  return {
    id: r.requiredText(inv.id, `${p}id`),
    uuid: asText(inv.uuid),
    invoiceId: r.requiredText(inv.invoice_id, `${p}invoice_id`),
    token: asText(inv.token),
  };
}

function statusOf(r: PayloadReader, value: unknown, path: string): Invoice['status'] {
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

function hasCardData(card: JsonRecord | null, keys: string[]): boolean {
  return !!card && keys.some((key) => asText(card[key]) !== null);
}

function methodOf(card: boolean, billet: Invoice['billet'], pix: unknown): PaymentMethod | null {
  if (card) return 'card';
  const hasLine = !!billet?.line;
  const hasPix = asText(asRecord(pix)?.payload) !== null;
  if (hasLine && hasPix) return null;
  if (hasLine) return 'billet';
  if (hasPix) return 'pix';
  return null;
}

/** The method an invoice names itself, by number (the profile's `payment.type` codes) or by name. */
function explicitMethod(inv: JsonRecord, codes: PaymentCodes): PaymentMethod | null {
  for (const value of [inv.payment_type, asRecord(inv.payment)?.type, inv.method]) {
    const code = asInt(value);
    if (code !== null) {
      const found = (Object.keys(codes) as PaymentMethod[]).find((m) => codes[m] === code);
      if (found) return found;
    }
    const name = asText(value)?.trim().toLowerCase();
    if (name && METHOD_NAMES[name]) return METHOD_NAMES[name];
  }
  return null;
}

function cardOf(
  card: JsonRecord | null,
  brand: unknown,
  last4: string | null,
  keys: string[],
): Invoice['card'] {
  return hasCardData(card, keys) ? { brand: asText(brand), last4 } : null;
}

function pixOf(value: unknown): Invoice['pix'] {
  const pix = asRecord(value);
  if (!pix) return null;
  const data = {
    image: asText(pix.image),
    payload: asText(pix.payload),
    status: asText(pix.status),
    endToEndId: asText(asRecord(pix.ete)?.id),
  };
  return Object.values(data).some((v) => v !== null) ? data : null;
}

function billetOf(line: unknown, barcode: unknown, url: string | null): Invoice['billet'] {
  const data = { line: asText(line), barcode: asText(barcode), url };
  return Object.values(data).some((v) => v !== null) ? data : null;
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

/**
 * The payload with card number, token and bin replaced, wherever a card block sits (the envelope, `invoice` or
 * `fatura`). Copy on write: only the objects on the way to a scrubbed card block are copied, the rest is shared with
 * the payload (which is only ever serialized), so a payload without card secrets costs no copy.
 */
function scrubCardData(top: JsonRecord): JsonRecord {
  let out = scrubCardBlocks(top);
  for (const key of ['invoice', 'fatura']) {
    const inner = asRecord(top[key]);
    const clean = inner ? scrubCardBlocks(inner) : inner;
    if (clean === inner) continue;
    if (out === top) out = { ...top };
    out[key] = clean;
  }
  return out;
}

/** `holder` with its `card`/`cartao` secrets redacted: itself when it has none. */
function scrubCardBlocks(holder: JsonRecord): JsonRecord {
  let out = holder;
  for (const key of ['card', 'cartao']) {
    const block = asRecord(holder[key]);
    const secrets = block ? CARD_SECRETS.filter((k) => block[k] !== null && block[k] !== undefined) : [];
    if (!block || secrets.length === 0) continue;
    const clean: JsonRecord = { ...block };
    for (const secret of secrets) clean[secret] = '[redacted]';
    if (out === holder) out = { ...holder };
    out[key] = clean;
  }
  return out;
}
