// The refunds of an invoice on its page: the ledger's rows, and the idempotency key of each refund asked for here.
import { brl, el, table, when } from './dom.js';
import { t } from './i18n.js';

const REFUND_BADGE = { pending: 'wait', unknown: 'warn', succeeded: 'ok', failed: 'bad' };

/**
 * The invoice's refunds: each one's state, a refund being confirmed (its answer was lost; the module reads the
 * invoice back until it knows) shown as such, and how each ended.
 */
export function refundsSection(ledger, lang) {
  const rows = ledger.refunds.map((r) => [
    when(r.createdAt, lang),
    brl(r.amountCents, lang),
    el(
      'span',
      { class: `badge ${REFUND_BADGE[r.state] ?? 'wait'}`, 'data-refund-state': r.state },
      t(`refundState_${r.state}`),
    ),
    r.requestedBy,
    r.settledAt
      ? when(r.settledAt, lang)
      : r.nextCheckAt
        ? t('refundNextCheck', { at: when(r.nextCheckAt, lang) })
        : '—',
    r.reason ?? '',
  ]);
  const headers = [
    t('colWhen'),
    t('colAmount'),
    t('colStatus'),
    t('colRequestedBy'),
    t('colSettled'),
    t('colNote'),
  ];
  return [
    el('h3', {}, t('refundsTitle')),
    el('div', { id: 'invoice-refunds' }, table(t('refundsTitle'), headers, rows, t('noRefunds'))),
  ];
}

/**
 * Idempotency keys of refunds asked for on this page, by invoice and amount: a retry of the same refund (after an
 * error, a lost answer, a second click) sends the same key, so the service is never asked twice. Dropped once the
 * refund is known to have been made or refused.
 */
const refundKeys = new Map();

export function refundKey(invoiceId, cents) {
  const name = `${invoiceId}:${cents}`;
  if (!refundKeys.has(name)) {
    // getRandomValues works outside secure contexts too (an admin page served over plain http).
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    refundKeys.set(name, `page-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`);
  }
  return refundKeys.get(name);
}

/** The refund is known to have been made or refused: a new one of the same amount gets a new key. */
export function forgetRefundKey(invoiceId, cents) {
  refundKeys.delete(`${invoiceId}:${cents}`);
}
