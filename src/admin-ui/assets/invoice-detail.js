// One invoice: its facts, PIX or bank-slip details, status history, and the due-date, cancel and refund actions.
import { api } from './api.js';
import { brl, day, el, fill, parseCents, safeLink, table, when } from './dom.js';
import { currentLang, t } from './i18n.js';
import { confirmDialog, showError, status } from './ui.js';

const BADGE = {
  5: 'ok',
  4: 'ok',
  8: 'warn',
  7: 'warn',
  9: 'warn',
  10: 'bad',
  12: 'bad',
  16: 'bad',
  6: 'bad',
  15: 'warn',
};

/** The status of an invoice as a badge: the page's name for the code, the code in a data attribute. */
export function statusBadge(inv) {
  const code = inv.statusCode;
  if (code === null || code === undefined) return el('span', { class: 'badge' }, inv.creationState);
  const known = t(`status_${code}`) !== `status_${code}`;
  return el(
    'span',
    { class: `badge ${BADGE[code] ?? 'wait'}`, 'data-status': code },
    known ? t(`status_${code}`) : t('statusUnknown', { code }),
  );
}

/** Loads and shows an invoice under the list; `reloadList` refreshes the list after an action. */
export async function showInvoice(id, reloadList) {
  const target = document.getElementById('invoice-detail');
  let inv;
  let history;
  let ledger;
  try {
    [inv, history, ledger] = await Promise.all([
      api('GET', `/invoices/${encodeURIComponent(id)}`),
      api('GET', `/invoices/${encodeURIComponent(id)}/history`),
      api('GET', `/invoices/${encodeURIComponent(id)}/refunds`),
    ]);
  } catch (error) {
    showError(error, document.getElementById('invoices-error'));
    return;
  }
  const lang = currentLang();
  const facts = [
    [t('colOrder'), inv.orderId],
    [t('invoiceNumber'), inv.gatewayId ?? '—'],
    [t('colStatus'), statusBadge(inv)],
    [t('creationState'), t(`creation_${inv.creationState}`)],
    [t('colMethod'), t(`method_${inv.method}`)],
    [t('colAmount'), brl(inv.amountCents, lang)],
    [t('colPaid'), brl(inv.paidCents, lang)],
    [t('colRefunded'), brl(inv.refundedCents, lang)],
    [t('colDue'), day(inv.dueDate, lang)],
    inv.card ? [t('card'), `${inv.card.brand ?? ''} •••• ${inv.card.last4 ?? ''}`] : null,
    inv.method === 'card' ? [t('installments'), String(inv.installments)] : null,
    inv.billetLine ? [t('billetLine'), inv.billetLine] : null,
    inv.billetUrl ? [t('billetUrl'), safeLink(inv.billetUrl)] : null,
    inv.paymentUrl ? [t('paymentUrl'), safeLink(inv.paymentUrl)] : null,
    inv.amountMismatch ? [t('amountMismatch'), t('yes')] : null,
    inv.failureReason ? [t('failureReason'), inv.failureReason] : null,
  ].filter(Boolean);
  const historyRows = history.map((h) => [
    when(h.createdAt, lang),
    h.fromCode === null ? '—' : String(h.fromCode),
    statusBadge({ statusCode: h.toCode }),
    t(`source_${h.source}`),
    h.applied ? t('yes') : t('no'),
    [h.note, h.alert].filter(Boolean).join(' · '),
  ]);
  const headers = [t('colWhen'), t('colFrom'), t('colTo'), t('colSource'), t('colApplied'), t('colNote')];
  fill(
    target,
    el('h3', { id: 'detail-title', tabindex: '-1' }, t('detailsOf', { order: inv.orderId })),
    el(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]),
    ),
    inv.pixPayload
      ? [
          el('label', { for: 'pix-code' }, t('pixCode')),
          el('textarea', { id: 'pix-code', class: 'code', readonly: true }, inv.pixPayload),
        ]
      : null,
    el('h3', {}, t('historyTitle')),
    el('div', { id: 'invoice-history' }, table(t('historyTitle'), headers, historyRows, t('noHistory'))),
    refundsSection(ledger, lang),
    actions(inv, ledger.refundableCents, reloadList),
  );
  target.hidden = false;
  document.getElementById('detail-title').focus();
}

const REFUND_BADGE = { pending: 'wait', unknown: 'warn', succeeded: 'ok', failed: 'bad' };

/**
 * The invoice's refunds: each one's state, a refund being confirmed (its answer was lost; the module reads the
 * invoice back until it knows) shown as such, and how each ended.
 */
function refundsSection(ledger, lang) {
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

function refundKey(invoiceId, cents) {
  const name = `${invoiceId}:${cents}`;
  if (!refundKeys.has(name)) {
    // getRandomValues works outside secure contexts too (an admin page served over plain http).
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    refundKeys.set(name, `page-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`);
  }
  return refundKeys.get(name);
}

function actions(inv, refundableCents, reloadList) {
  const error = el('p', { class: 'error', id: 'action-error', role: 'alert' });
  // Refunds in flight count as spent until they are settled.
  const remaining = refundableCents;
  const run = async (call, done) => {
    error.textContent = '';
    let answer;
    try {
      answer = await call();
    } catch (err) {
      showError(err, error);
      return;
    }
    await reloadList();
    await showInvoice(inv.id, reloadList);
    status(typeof done === 'function' ? done(answer) : done);
  };
  const path = `/invoices/${encodeURIComponent(inv.id)}`;
  const dueDate = el('input', { id: 'new-due-date', type: 'date' });
  const amount = el('input', {
    id: 'refund-amount',
    type: 'text',
    inputmode: 'decimal',
    'aria-describedby': 'refund-help',
  });
  return el(
    'div',
    { id: 'invoice-actions' },
    el('h3', {}, t('actionsTitle')),
    el(
      'div',
      { class: 'actions' },
      el('label', { for: 'new-due-date' }, t('newDueDate')),
      dueDate,
      el(
        'button',
        {
          type: 'button',
          id: 'change-due-date',
          onclick: () =>
            run(() => api('POST', `${path}/due-date`, { dueDate: dueDate.value }), t('dueDateChanged')),
        },
        t('changeDueDate'),
      ),
    ),
    el(
      'div',
      { class: 'actions' },
      el('label', { for: 'refund-amount' }, t('refundAmount')),
      amount,
      el('button', { type: 'button', id: 'refund', onclick: () => refund() }, t('refund')),
    ),
    el(
      'p',
      { class: 'help', id: 'refund-help' },
      t('refundAmountHelp', { remaining: brl(remaining, currentLang()) }),
    ),
    el(
      'div',
      { class: 'actions' },
      el(
        'button',
        { type: 'button', class: 'danger', id: 'cancel-invoice', onclick: () => cancel() },
        t('cancelInvoice'),
      ),
    ),
    error,
  );

  async function refund() {
    const cents = amount.value.trim() === '' ? remaining : parseCents(amount.value);
    if (cents === null) {
      error.textContent = t('badAmount');
      amount.focus();
      return;
    }
    const text = t('refundConfirmText', { amount: brl(cents, currentLang()), order: inv.orderId });
    if (!(await confirmDialog({ title: t('refundConfirmTitle'), text, ok: t('refund') }))) return;
    const idempotencyKey = refundKey(inv.id, cents);
    await run(
      () => api('POST', `${path}/refund`, { amountCents: cents, idempotencyKey }),
      (answer) => {
        if (answer?.refund?.state === 'unknown') return t('refundConfirming');
        refundKeys.delete(`${inv.id}:${cents}`);
        return t('refunded');
      },
    );
  }

  async function cancel() {
    const ok = await confirmDialog({
      title: t('cancelConfirmTitle'),
      text: t('cancelConfirmText', { order: inv.orderId }),
      ok: t('cancelInvoice'),
    });
    if (ok) await run(() => api('POST', `${path}/cancel`), t('canceled'));
  }
}
