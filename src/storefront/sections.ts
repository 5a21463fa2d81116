import { h, type Child } from './dom.js';
import { itfBarcode } from './itf.js';
import type { Messages } from './messages.js';
import { formatMoney, parseCents } from './money.js';
import type { PaymentState, PaymentView } from './types.js';

/** What the sections need from the element: the shopper's words and the actions behind the buttons. */
export interface SectionContext {
  m: Messages;
  locale: string;
  /** Copies the text, announces "Copiado". */
  copy(text: string): void;
  /** Asks the store for a new PIX code; null when this page cannot (no renewal route, not renewable). */
  renew: (() => void) | null;
  /** Shows the card form again; null when the store gave no `pay` hook. */
  retry: (() => void) | null;
}

/**
 * The state the shopper sees: a waiting PIX past its expiry is expired even before the store says so, a waiting card
 * is being processed.
 */
export function shownState(view: PaymentView, now: number): PaymentState {
  const expiresAt = view.pix?.expiresAt ? Date.parse(view.pix.expiresAt) : NaN;
  if (view.method === 'pix' && view.state === 'waiting' && expiresAt <= now) return 'expired';
  // A card invoice waits only for the service to charge it: to the shopper, it is being processed.
  if (view.method === 'card' && view.state === 'waiting') return 'processing';
  return view.state;
}

/** The whole payment, for a view: status line, amount, then what the method and state call for. */
export function paymentSection(view: PaymentView, state: PaymentState, c: SectionContext): Child[] {
  const { m } = c;
  const cents = parseCents(view.amount) ?? 0;
  const head: Child[] = [
    h('h2', { part: 'status', 'data-state': state, tabindex: -1 }, m.state[state]),
    h(
      'p',
      {},
      h('span', { class: 'muted' }, `${m.amount}: `),
      h('span', { part: 'amount' }, formatMoney(cents, view.currency, c.locale)),
    ),
  ];
  const note = m.stateNote[state];
  if (state === 'waiting' && view.method === 'pix' && view.pix) return [...head, ...pixWaiting(view.pix, c)];
  if (state === 'waiting' && view.method === 'billet' && view.billet)
    return [...head, ...billetWaiting(view.billet, c)];
  const body: Child[] = [note && h('p', { part: 'note' }, note)];
  if (view.card?.last4 && (state === 'paid' || state === 'processing' || state === 'refunded')) {
    const brand = (view.card.brand ?? '').replace(/^./, (first) => first.toUpperCase());
    body.push(h('p', {}, m.cardPaid(brand, view.card.last4, view.card.installments ?? 1)));
  }
  if (state === 'expired') body.push(...expired(c));
  if (state === 'failed' && view.method === 'card') {
    body.splice(0, 1, h('p', { part: 'error', role: 'alert' }, m.declined));
    if (c.retry)
      body.push(h('button', { part: 'button retry-button', type: 'button', onclick: c.retry }, m.retry));
  }
  body.push(orderLink(view, c));
  return [...head, ...body];
}

function pixWaiting(pix: NonNullable<PaymentView['pix']>, c: SectionContext): Child[] {
  const { m } = c;
  return [
    h('p', {}, m.pixScan),
    pix.image && h('img', { part: 'qr', src: pix.image, alt: m.qrAlt, width: 240, height: 240 }),
    ...(pix.payload ? copyable('pix-code', m.pixCode, pix.payload, 'code', c) : []),
    pix.expiresAt &&
      h('p', { part: 'countdown', role: 'timer', 'aria-live': 'off', 'data-expires': pix.expiresAt }),
  ];
}

function billetWaiting(billet: NonNullable<PaymentView['billet']>, c: SectionContext): Child[] {
  const { m } = c;
  return [
    billet.dueAt &&
      h(
        'p',
        {},
        h('span', { class: 'muted' }, `${m.dueAt}: `),
        h('strong', { part: 'due-date' }, day(billet.dueAt, c.locale)),
      ),
    ...(billet.line
      ? copyable('billet-line', m.billetLine, billet.line, 'line', c, digitableLine(billet.line))
      : []),
    billet.barcode && itfBarcode(billet.barcode, m.barcode),
    billet.url &&
      h(
        'a',
        { part: 'slip-link', href: billet.url, target: '_blank', rel: 'noopener noreferrer' },
        m.slipLink,
      ),
    h('p', { part: 'note' }, m.billetNote),
  ];
}

/** A read-only code with its label and copy button (which copies `value`; the field may show it spaced out). */
function copyable(
  id: string,
  label: string,
  value: string,
  part: string,
  c: SectionContext,
  shown = value,
): Child[] {
  const field = h('textarea', {
    id,
    part,
    readonly: true,
    rows: part === 'code' ? 5 : 2,
    spellcheck: 'false',
  });
  field.value = shown;
  return [
    h('div', {}, h('label', { for: id }, label), field),
    h(
      'button',
      {
        part: 'button copy-button',
        type: 'button',
        'data-focus': `copy-${id}`,
        onclick: () => c.copy(value),
      },
      c.m.copy,
    ),
  ];
}

function expired(c: SectionContext): Child[] {
  if (!c.renew) return [h('p', { part: 'note' }, c.m.renewAtStore)];
  return [
    h(
      'button',
      { part: 'button renew-button', type: 'button', 'data-focus': 'renew', onclick: c.renew },
      c.m.renew,
    ),
  ];
}

function orderLink(view: PaymentView, c: SectionContext): Child {
  return view.orderUrl && h('a', { part: 'order-link', href: view.orderUrl }, c.m.orderLink);
}

/**
 * A digitable line as printed on a slip: 47 digits (bank slip) in the FEBRABAN groups
 * `00190.00009 01234.567004 00000.001172 9 16480000006490`, 48 (utility bill) in four blocks; anything else as is.
 */
export function digitableLine(line: string): string {
  const d = line.replace(/\D/g, '');
  if (d.length === 47) {
    const at = (from: number, to: number) => d.slice(from, to);
    return `${at(0, 5)}.${at(5, 10)} ${at(10, 15)}.${at(15, 21)} ${at(21, 26)}.${at(26, 32)} ${at(32, 33)} ${at(33, 47)}`;
  }
  if (d.length === 48)
    return (d.match(/\d{12}/g) as string[]).map((b) => `${b.slice(0, 11)}-${b[11]}`).join(' ');
  return line;
}

/** `2026-12-02` → `02/12/2026` (pt-BR), `12/2/2026` (en): a calendar day, not shifted by the time zone. */
function day(text: string, locale: string): string {
  const date = new Date(`${text.slice(0, 10)}T12:00:00Z`);
  return Number.isNaN(date.getTime())
    ? text
    : new Intl.DateTimeFormat(locale, { timeZone: 'UTC' }).format(date);
}

/** Seconds left → `29:05` or `1:02:03`. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const [hours, minutes, seconds] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/** Past this, a countdown means little: the shopper reads the day and time instead. */
const COUNTDOWN_FROM_MS = 24 * 3600_000;

/**
 * Counts the PIX down each second in the `countdown` part (or shows until when it is valid, a day or more ahead), if
 * the content has one; `onExpired` runs once the time is up. Answers the interval to clear, or undefined.
 */
export function startCountdown(
  main: HTMLElement,
  c: Pick<SectionContext, 'm' | 'locale'>,
  onExpired: () => void,
): ReturnType<typeof setInterval> | undefined {
  const countdown = main.querySelector<HTMLElement>('[part~=countdown]');
  if (!countdown) return undefined;
  const expiresAt = Date.parse(countdown.dataset.expires ?? '');
  const until = new Intl.DateTimeFormat(c.locale, { dateStyle: 'short', timeStyle: 'short' });
  const update = () => {
    const left = expiresAt - Date.now();
    countdown.textContent =
      left >= COUNTDOWN_FROM_MS ? c.m.validUntil(until.format(expiresAt)) : c.m.expiresIn(clock(left));
    if (left <= 0) onExpired();
  };
  update();
  return setInterval(update, 1000);
}
