// The Operations tab: webhook deliveries pending or dead (retry), tracking codes waiting or failed (retry), open
// alerts (acknowledge) and unresolved invoice creations (read only: their resolution is the checkout's).
import { api } from './api.js';
import { brl, el, fill, table, when } from './dom.js';
import { currentLang, t } from './i18n.js';
import { orderLabel } from './invoice-detail.js';
import { gatewayReason, showError, status } from './ui.js';

/** Draws the four lists. */
export async function showOperations(panel) {
  fill(
    panel,
    el(
      'div',
      { class: 'actions' },
      el(
        'button',
        { type: 'button', id: 'refresh-operations', onclick: () => showOperations(panel) },
        t('refresh'),
      ),
    ),
    section('inbox', t('inboxTitle')),
    section('outbox', t('outboxTitle')),
    section('alerts', t('alertsTitle')),
    section('unresolved', t('unresolvedTitle'), t('unresolvedHelp')),
  );
  await Promise.all([inbox(), outbox(), alerts(), unresolved()]);
}

function section(id, title, help) {
  return el(
    'section',
    { id: `ops-${id}`, 'aria-labelledby': `ops-${id}-title` },
    el('h2', { id: `ops-${id}-title` }, title),
    help ? el('p', { class: 'help' }, help) : null,
    el('p', { class: 'error', id: `ops-${id}-error`, role: 'alert' }),
    el('div', { id: `ops-${id}-list` }),
  );
}

/** Loads `path` and draws its items with `row` into the section `id`. */
async function list(id, path, query, headers, row, empty) {
  const target = document.getElementById(`ops-${id}-list`);
  const errors = document.getElementById(`ops-${id}-error`);
  if (!target) return;
  errors.textContent = '';
  try {
    const page = await api('GET', path, undefined, { limit: 100, ...query });
    fill(target, table(id, headers, page.items.map(row), empty));
  } catch (error) {
    showError(error, errors);
  }
}

/** A long technical text (the API's English message) folded away under "Detalhe técnico", wrapping. */
function technical(text) {
  if (!text) return '';
  return el('details', { class: 'technical' }, el('summary', {}, t('technicalDetail')), el('code', {}, text));
}

/** A button that POSTs `path`, then reloads the section with `reload`. */
function action(id, label, name, path, done, reload) {
  return el(
    'button',
    {
      type: 'button',
      'data-action': id,
      'aria-label': `${label}: ${name}`,
      onclick: async () => {
        try {
          await api('POST', path);
          status(done);
        } catch (error) {
          showError(error);
        }
        await reload();
      },
    },
    label,
  );
}

function inbox() {
  const lang = currentLang();
  const headers = [
    t('colReceived'),
    t('colEvent'),
    t('colInvoice'),
    t('colStatus'),
    t('colState'),
    { label: t('colAttempts'), num: true },
    t('colReason'),
    '',
  ];
  return list(
    'inbox',
    '/webhooks/inbox',
    {},
    headers,
    (e) => [
      when(e.receivedAt, lang),
      e.event ?? '—',
      e.gatewayId ? el('span', { class: 'ref' }, e.gatewayId) : '—',
      e.statusCode === null ? '—' : String(e.statusCode),
      el(
        'span',
        { class: `badge ${e.state === 'dead' ? 'bad' : 'wait'}`, 'data-state': e.state },
        t(`state_${e.state}`),
      ),
      String(e.attempts),
      e.lastError ? el('span', { class: 'reason' }, t(`inboxReason_${e.state}`), technical(e.lastError)) : '',
      e.retryable
        ? action(
            e.id,
            t('retry'),
            e.gatewayId ?? e.id,
            `/webhooks/inbox/${encodeURIComponent(e.id)}/retry`,
            t('retried'),
            inbox,
          )
        : '',
    ],
    t('noInbox'),
  );
}

function outbox() {
  const lang = currentLang();
  const headers = [
    t('colWhen'),
    t('colOrder'),
    t('colCode'),
    t('colState'),
    { label: t('colAttempts'), num: true },
    t('colError'),
    '',
  ];
  return list(
    'outbox',
    '/tracking/outbox',
    {},
    headers,
    (o) => [
      when(o.recordedAt, lang),
      el('span', { class: 'ref' }, orderLabel(o)),
      o.code,
      el('span', { class: `badge ${o.status === 'failed' ? 'bad' : 'wait'}` }, t(`tracking_${o.status}`)),
      String(o.attempts),
      o.lastError
        ? el(
            'span',
            { class: 'reason', 'data-error-code': o.lastErrorCode ?? 'unknown' },
            t('trackingError', { reason: gatewayReason(o.lastErrorCode ?? 'unknown') }),
            technical(o.lastError),
          )
        : '',
      o.retryable
        ? action(
            o.id,
            t('resend'),
            o.code,
            `/tracking/outbox/${encodeURIComponent(o.id)}/retry`,
            t('retried'),
            outbox,
          )
        : '',
    ],
    t('noOutbox'),
  );
}

function alerts() {
  const lang = currentLang();
  const headers = [t('colWhen'), t('colKind'), t('colOrder'), t('colMessage'), ''];
  return list(
    'alerts',
    '/alerts',
    { open: true },
    headers,
    (a) => [
      when(a.createdAt, lang),
      el(
        'span',
        { class: 'badge warn', 'data-kind': a.kind },
        t(`alert_${a.kind}`) === `alert_${a.kind}` ? a.kind : t(`alert_${a.kind}`),
      ),
      a.orderId ? el('span', { class: 'ref' }, orderLabel(a)) : '—',
      el(
        'span',
        { class: 'reason' },
        t(`alertText_${a.kind}`) === `alertText_${a.kind}` ? a.message : t(`alertText_${a.kind}`),
        technical(a.message),
      ),
      action(
        a.id,
        t('acknowledge'),
        a.kind,
        `/alerts/${encodeURIComponent(a.id)}/acknowledge`,
        t('acknowledged'),
        alerts,
      ),
    ],
    t('noAlerts'),
  );
}

function unresolved() {
  const lang = currentLang();
  const headers = [
    t('colCreated'),
    t('colOrder'),
    t('colMethod'),
    { label: t('colAmount'), num: true },
    t('creationState'),
  ];
  return list(
    'unresolved',
    '/invoices',
    { creationState: 'unknown' },
    headers,
    (inv) => [
      when(inv.createdAt, lang),
      el('span', { class: 'ref' }, orderLabel(inv)),
      t(`method_${inv.method}`),
      brl(inv.amountCents, lang),
      t(`creation_${inv.creationState}`),
    ],
    t('noUnresolved'),
  );
}
