// One invoice: its facts, PIX or bank-slip details, status history, and the due-date, cancel and refund actions.
import { api } from './api.js';
import { brl, day, el, fill, parseCents, safeLink, table, when } from './dom.js';
import { currentLang, t } from './i18n.js';
import { confirmDialog, showError, status } from './ui.js';
import { forgetRefundKey, refundKey, refundsSection } from './invoice-refunds.js';

/** The badge colour of each tone the API gives from the module's status table. */
const BADGE = { paid: 'ok', open: 'wait', ended: 'bad', expired: 'warn' };

/** An invoice's status as a badge; before it has one, its creation state. */
export function invoiceBadge(inv) {
  if (inv.statusCode === null || inv.statusCode === undefined) {
    return el('span', { class: 'badge' }, inv.creationState);
  }
  return statusBadge({ code: inv.statusCode, key: inv.statusKey, tone: inv.statusTone });
}

/**
 * A status as a badge: its text named by the status's key and its colour by its tone, both as the API gives them;
 * the code in a data attribute. A code the status table does not list has no key and shows as its code.
 */
function statusBadge({ code, key, tone }) {
  return el(
    'span',
    { class: `badge ${BADGE[tone] ?? 'wait'}`, 'data-status': code },
    key ? t(`status_${key}`) : t('statusUnknown', { code }),
  );
}

/** The order as people know it: its number when the host gave one, else the host's order id. */
export function orderLabel(inv) {
  return inv.displayId ? t('orderNumber', { number: inv.displayId }) : inv.orderId;
}

/** When the invoice was paid: the first applied report of a status whose tone is `paid` in its history. */
function paidAt(history) {
  return history.find((h) => h.applied && h.to?.tone === 'paid')?.createdAt ?? null;
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
  const customer = inv.customer ?? {};
  const paid = paidAt(history);
  const facts = [
    [t('colOrder'), orderLabel(inv)],
    inv.displayId ? [t('orderInternal'), inv.orderId] : null,
    customer.name ? [t('customerName'), customer.name] : null,
    customer.email ? [t('customerEmail'), customer.email] : null,
    customer.document ? [t('customerDocument'), customer.document] : null,
    [t('invoiceNumber'), inv.gatewayId ?? '—'],
    [t('colStatus'), invoiceBadge(inv)],
    [t('creationState'), t(`creation_${inv.creationState}`)],
    [t('colMethod'), t(`method_${inv.method}`)],
    [t('colAmount'), brl(inv.amountCents, lang)],
    [t('colPaid'), brl(inv.paidCents, lang)],
    [t('colRefunded'), brl(inv.refundedCents, lang)],
    paid ? [t('paidAt'), when(paid, lang)] : null,
    [t('colDue'), day(inv.dueDate, lang)],
    inv.card ? [t('card'), `${inv.card.brand ?? ''} •••• ${inv.card.last4 ?? ''}`] : null,
    inv.method === 'card' ? [t('installments'), String(inv.installments)] : null,
    inv.billetLine ? [t('billetLine'), inv.billetLine] : null,
    inv.billetUrl ? [t('billetUrl'), safeLink(inv.billetUrl)] : null,
    inv.paymentUrl ? [t('paymentUrl'), safeLink(inv.paymentUrl)] : null,
    inv.amountMismatch ? [t('amountMismatch'), t('yes')] : null,
    inv.failureReason ? [t('failureReason'), inv.failureReason] : null,
  ].filter(Boolean);
  const amountFacts = new Set([t('colAmount'), t('colPaid'), t('colRefunded')]);
  const historyRows = history.map((h) => [
    when(h.createdAt, lang),
    h.fromCode === null ? '—' : String(h.fromCode),
    statusBadge(h.to ?? { code: h.toCode }),
    t(`source_${h.source}`),
    h.applied ? t('yes') : t('no'),
    historyNote(h),
  ]);
  const headers = [t('colWhen'), t('colFrom'), t('colTo'), t('colSource'), t('colApplied'), t('colNote')];
  fill(
    target,
    el('h3', { id: 'detail-title', tabindex: '-1' }, t('detailsOf', { order: orderLabel(inv) })),
    el(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [el('dt', {}, k), el('dd', { class: amountFacts.has(k) ? 'num' : null }, v)]),
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

/** A history row's note in the page's language when the API gives its code; other notes as written. */
function historyNote(h) {
  if (h.noteCode) return t(`note_${h.noteCode}`);
  return [h.note, h.alert ? t(`alert_${h.alert}`) : null].filter(Boolean).join(' · ');
}

/**
 * The actions the invoice's state allows (`allowedActions`, computed by the server from the module's one rule set):
 * nothing else is offered. The refund is bounded by what is left (the ledger's `refundableCents`) and says so.
 */
function actions(inv, refundableCents, reloadList) {
  const error = el('p', { class: 'error', id: 'action-error', role: 'alert' });
  const allowed = new Set(inv.allowedActions ?? []);
  // The ledger's remainder: refunds in flight count as spent until they are settled.
  const remaining = refundableCents ?? inv.refundableCents ?? 0;
  const lang = currentLang();
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
  const dueDate = el('input', { id: 'new-due-date', type: 'date', 'aria-describedby': 'due-date-help' });
  const amount = el('input', {
    id: 'refund-amount',
    type: 'text',
    inputmode: 'decimal',
    'aria-describedby': 'refund-help',
    placeholder: brl(remaining, lang),
  });
  const groups = [
    allowed.has('changeDueDate')
      ? el(
          'div',
          { class: 'action-group', id: 'due-date-action' },
          el('label', { for: 'new-due-date' }, t('newDueDate')),
          el(
            'div',
            { class: 'actions' },
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
          el('p', { class: 'help', id: 'due-date-help' }, t('dueDateHelp')),
        )
      : null,
    allowed.has('refund') && remaining > 0
      ? el(
          'div',
          { class: 'action-group', id: 'refund-action' },
          el('label', { for: 'refund-amount' }, t('refundAmount')),
          el(
            'div',
            { class: 'actions' },
            amount,
            el('button', { type: 'button', id: 'refund', onclick: () => refund() }, t('refund')),
          ),
          el(
            'p',
            { class: 'help', id: 'refund-help' },
            t('refundAmountHelp', { remaining: brl(remaining, lang) }),
          ),
        )
      : null,
    allowed.has('cancel')
      ? el(
          'div',
          { class: 'actions' },
          el(
            'button',
            { type: 'button', class: 'danger', id: 'cancel-invoice', onclick: () => cancel() },
            t('cancelInvoice'),
          ),
        )
      : null,
  ].filter(Boolean);
  return el(
    'div',
    { id: 'invoice-actions' },
    el('h3', {}, t('actionsTitle')),
    groups.length > 0 ? groups : el('p', { class: 'empty', id: 'no-actions' }, t('noActions')),
    error,
  );

  async function refund() {
    const cents = amount.value.trim() === '' ? remaining : parseCents(amount.value);
    if (cents === null || cents <= 0) {
      error.textContent = t('badAmount');
      amount.focus();
      return;
    }
    if (cents > remaining) {
      error.textContent = t('refundTooMuch', { remaining: brl(remaining, currentLang()) });
      amount.focus();
      return;
    }
    const text = t('refundConfirmText', {
      amount: brl(cents, currentLang()),
      order: orderLabel(inv),
      remaining: brl(remaining - cents, currentLang()),
    });
    if (!(await confirmDialog({ title: t('refundConfirmTitle'), text, ok: t('refund') }))) return;
    const idempotencyKey = refundKey(inv.id, cents);
    await run(
      () => api('POST', `${path}/refund`, { amountCents: cents, idempotencyKey }),
      (answer) => {
        if (answer?.refund?.state === 'unknown') return t('refundConfirming');
        forgetRefundKey(inv.id, cents);
        return t('refunded');
      },
    );
  }

  async function cancel() {
    const ok = await confirmDialog({
      title: t('cancelConfirmTitle'),
      text: t('cancelConfirmText', { order: orderLabel(inv), amount: brl(inv.amountCents, currentLang()) }),
      ok: t('cancelInvoice'),
    });
    if (ok) await run(() => api('POST', `${path}/cancel`), t('canceled'));
  }
}
