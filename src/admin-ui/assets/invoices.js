// The Invoices tab: filters (status, method, search by order number or customer, dates), the paged list, and the chosen invoice's details.
import { api } from './api.js';
import { brl, day, el, fill, table, when } from './dom.js';
import { currentLang, t } from './i18n.js';
import { invoiceBadge, orderLabel, showInvoice } from './invoice-detail.js';
import { showError } from './ui.js';

const LIMIT = 20;
/** The statuses of the module's status table (`{ code, key }`), read from the API once. */
let statuses = null;
/** The filters, the page shown, and the cursor of each page reached (`cursors[0]`: none, the first page). */
let query = { page: 1 };
let cursors = [undefined];
let nextCursor = null;

/** Draws the filters and the first page. */
export async function showInvoices(panel) {
  if (!statuses) {
    // Without them the filter offers "any" only; the list itself says what went wrong.
    statuses = await api('GET', '/statuses').catch(() => null);
  }
  const select = (id, label, options) =>
    el(
      'label',
      { for: id },
      label,
      el(
        'select',
        { id },
        el('option', { value: '' }, t('any')),
        options.map(([v, text]) => el('option', { value: v }, text)),
      ),
    );
  const form = el(
    'form',
    { class: 'filters', id: 'invoice-filters', novalidate: true, onsubmit: (e) => applyFilters(e) },
    select(
      'filter-status',
      t('filterStatus'),
      (statuses ?? []).map((s) => [s.code, t(`status_${s.key}`)]),
    ),
    select(
      'filter-method',
      t('filterMethod'),
      ['pix', 'billet', 'card'].map((m) => [m, t(`method_${m}`)]),
    ),
    el(
      'label',
      { for: 'filter-q', class: 'wide' },
      t('filterSearch'),
      el('input', {
        id: 'filter-q',
        type: 'search',
        maxlength: 100,
        'aria-describedby': 'filter-q-help',
      }),
      el('span', { class: 'help', id: 'filter-q-help' }, t('filterSearchHelp')),
    ),
    el('label', { for: 'filter-from' }, t('filterFrom'), el('input', { id: 'filter-from', type: 'date' })),
    el('label', { for: 'filter-to' }, t('filterTo'), el('input', { id: 'filter-to', type: 'date' })),
    el('button', { type: 'submit', class: 'primary', id: 'apply-filters' }, t('applyFilters')),
  );
  fill(
    panel,
    el('h2', {}, t('invoicesTitle')),
    form,
    el('p', { class: 'error', id: 'invoices-error', role: 'alert' }),
    el('div', { id: 'invoice-list' }),
    el('div', { id: 'invoice-detail', class: 'detail', hidden: true }),
  );
  query = { page: 1 };
  cursors = [undefined];
  return load();
}

/** The browser's local midnight of a `YYYY-MM-DD` day, plus `days`, as an ISO instant. */
function localMidnight(ymd, days = 0) {
  const [y, m, d] = ymd.split('-').map(Number);
  return new Date(y, m - 1, d + days).toISOString();
}

function applyFilters(event) {
  event.preventDefault();
  const value = (id) => document.getElementById(id).value.trim();
  query = {
    page: 1,
    status: value('filter-status'),
    method: value('filter-method'),
    q: value('filter-q'),
    createdFrom: value('filter-from') ? localMidnight(value('filter-from')) : '',
    createdBefore: value('filter-to') ? localMidnight(value('filter-to'), 1) : '',
  };
  cursors = [undefined];
  return load();
}

/** Loads the current page of the list (again). */
export async function load() {
  const target = document.getElementById('invoice-list');
  const errors = document.getElementById('invoices-error');
  if (!target) return;
  errors.textContent = '';
  let page;
  try {
    // Read by keyset: the page after the previous page's last invoice, as fast on page 500 as on page 1.
    page = await api('GET', '/invoices', undefined, {
      ...query,
      cursor: cursors[query.page - 1],
      limit: LIMIT,
    });
  } catch (error) {
    showError(error, errors);
    return;
  }
  const lang = currentLang();
  const headers = [
    t('colOrder'),
    t('colCustomer'),
    t('colCreated'),
    t('colMethod'),
    t('colStatus'),
    { label: t('colAmount'), num: true },
    { label: t('colPaid'), num: true },
    { label: t('colRefunded'), num: true },
    t('colDue'),
    '',
  ];
  const rows = page.items.map((inv) => [
    el('span', { class: 'ref' }, orderLabel(inv)),
    customerCell(inv),
    when(inv.createdAt, lang),
    t(`method_${inv.method}`),
    invoiceBadge(inv),
    brl(inv.amountCents, lang),
    brl(inv.paidCents, lang),
    brl(inv.refundedCents, lang),
    day(inv.dueDate, lang),
    el(
      'button',
      {
        type: 'button',
        'data-invoice': inv.id,
        'aria-label': `${t('details')}: ${orderLabel(inv)}`,
        onclick: () => showInvoice(inv.id, load),
      },
      t('details'),
    ),
  ]);
  nextCursor = page.nextCursor ?? null;
  // Past 10 000 matching invoices the list does not count them all: "10.000+" ("10,000+" in English).
  const count = (n) =>
    new Intl.NumberFormat(lang === 'en' ? 'en' : 'pt-BR').format(n) + (page.totalCapped ? '+' : '');
  const pager = el(
    'div',
    { class: 'pager' },
    el(
      'button',
      { type: 'button', id: 'page-prev', disabled: query.page <= 1, onclick: () => go(-1) },
      t('previous'),
    ),
    el(
      'span',
      { id: 'page-of' },
      t('pageOf', { page: query.page, pages: count(Math.max(page.pages, 1)), total: count(page.total) }),
    ),
    el('button', { type: 'button', id: 'page-next', disabled: !nextCursor, onclick: () => go(1) }, t('next')),
  );
  fill(target, table(t('invoicesTitle'), headers, rows, t('noInvoices')), pager);
}

function customerCell(inv) {
  const { name, email } = inv.customer ?? {};
  if (!name && !email) return '—';
  return el(
    'span',
    { class: 'customer' },
    name ?? '',
    name && email ? el('br') : null,
    email ? el('small', {}, email) : null,
  );
}

function go(delta) {
  const target = Math.max(1, query.page + delta);
  if (delta > 0) {
    if (!nextCursor) return;
    cursors[target - 1] = nextCursor;
  }
  query = { ...query, page: target };
  return load();
}
