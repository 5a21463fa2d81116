import { parseCents } from './money.js';
import type { PaymentMethod, PaymentState, PaymentView } from './types.js';

const METHODS: readonly PaymentMethod[] = ['pix', 'billet', 'card'];
const STATES: readonly PaymentState[] = [
  'waiting',
  'processing',
  'paid',
  'expired',
  'canceled',
  'failed',
  'refunded',
];
/** Longest text taken from a view (a PIX payload is ~250 characters, a URL rarely over 2 kB). */
const MAX_TEXT = 4096;

/** A view the component cannot show: the store answered something else than the contract's JSON. */
export class ViewError extends Error {}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(o: Json, key: string, nullable: true): string | null;
function text(o: Json, key: string, nullable?: false): string;
function text(o: Json, key: string, nullable = false): string | null {
  const v = o[key];
  if ((v === null || v === undefined) && nullable) return null;
  if (typeof v !== 'string' || v.length > MAX_TEXT) throw new ViewError(`${key} must be a string`);
  return v;
}

function part(o: Json, key: string): Json | null {
  const v = o[key];
  if (v === null || v === undefined) return null;
  if (!isObject(v)) throw new ViewError(`${key} must be an object`);
  return v;
}

/**
 * Reads the status route's answer: the contract's fields only, each checked, so nothing unexpected reaches the page.
 * Throws {@link ViewError} when a field is missing or of another type.
 */
export function readView(body: unknown): PaymentView {
  if (!isObject(body)) throw new ViewError('the answer is not a JSON object');
  const method = body.method as PaymentMethod;
  const state = body.state as PaymentState;
  if (!METHODS.includes(method)) throw new ViewError('method is unknown');
  if (!STATES.includes(state)) throw new ViewError('state is unknown');
  const amount = text(body, 'amount');
  if (parseCents(amount) === null) throw new ViewError('amount must be a decimal string');
  const pix = part(body, 'pix');
  const billet = part(body, 'billet');
  const card = part(body, 'card');
  const installments = card?.installments;
  return {
    method,
    state,
    amount,
    currency: /^[A-Z]{3}$/.test(String(body.currency)) ? String(body.currency) : 'BRL',
    invoiceNumber: text(body, 'invoiceNumber', true),
    pix: pix && {
      payload: text(pix, 'payload', true),
      image: safeUrl(text(pix, 'image', true), true),
      expiresAt: text(pix, 'expiresAt', true),
    },
    billet: billet && {
      line: text(billet, 'line', true),
      barcode: text(billet, 'barcode', true),
      url: safeUrl(text(billet, 'url', true)),
      dueAt: text(billet, 'dueAt', true),
    },
    card: card && {
      brand: text(card, 'brand', true),
      last4: text(card, 'last4', true),
      installments: Number.isSafeInteger(installments) ? (installments as number) : null,
    },
    renewable: body.renewable === true,
    orderUrl: safeUrl(text(body, 'orderUrl', true)),
  };
}

/** An http(s) URL (or, for images, a PNG/SVG data URL); anything else (`javascript:`...) is dropped. */
export function safeUrl(value: string | null, image = false): string | null {
  if (value === null) return null;
  if (image && /^data:image\/(png|svg\+xml|jpeg|gif);/i.test(value)) return value;
  try {
    const url = new URL(value, document.baseURI);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
