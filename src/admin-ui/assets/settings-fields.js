// The settings form: one row per field of the settings API, with its help, its current value and its errors.
import { el } from './dom.js';
import { t } from './i18n.js';

/**
 * Every field of `PUT /settings`, in the order shown. `advanced`: addresses, ids and protocol, kept in a collapsed
 * section (they are set once, usually by whoever installed the store).
 */
export const FIELDS = [
  { name: 'mode', type: 'mode' },
  { name: 'accessToken', secret: true },
  { name: 'enabledMethods', type: 'methods' },
  { name: 'dueDays', type: 'int' },
  { name: 'maxInstallments', type: 'int' },
  { name: 'baseUrl', type: 'url', advanced: true },
  { name: 'publicWebhookUrl', type: 'url', advanced: true },
  { name: 'webhookToken', secret: true, advanced: true },
  { name: 'orderUrlTemplate', type: 'text', advanced: true },
  { name: 'storeUrlTemplate', type: 'text', advanced: true },
  { name: 'timeZone', type: 'text', advanced: true },
  { name: 'ecommerce', type: 'ecommerce', advanced: true },
  { name: 'wireProfile', type: 'json', advanced: true },
];
const METHODS = ['pix', 'billet', 'card'];

function describe(field, value) {
  if (field.secret) {
    if (!value || !value.set) return t('secretNotSet');
    return value.last4 ? t('secretSetLast4', { last4: value.last4 }) : t('secretSet');
  }
  if (value === null || value === undefined || value === '') return t('notSet');
  if (field.type === 'methods') return value.map((m) => t(`method_${m}`)).join(', ');
  if (field.type === 'ecommerce')
    return `${t('f_storeId')} ${value.storeId} · ${t('f_checkout')} ${value.checkout}`;
  if (field.type === 'mode') return value === 'production' ? t('modeProduction') : t('modeSandbox');
  if (field.type === 'json') return t('jsonSet');
  return String(value);
}

function control(field, value, id, describedBy) {
  const aria = { 'aria-describedby': describedBy };
  if (field.secret) {
    return [
      el('input', { id, type: 'password', autocomplete: 'new-password', ...aria }),
      el('label', {}, el('input', { type: 'checkbox', 'data-clear': field.name }), ' ', t('secretClear')),
    ];
  }
  if (field.type === 'mode') {
    return ['sandbox', 'production'].map((mode) =>
      el(
        'label',
        {},
        el('input', {
          type: 'radio',
          name: 'mode',
          value: mode,
          id: mode === 'sandbox' ? id : null,
          checked: value === mode,
          ...aria,
        }),
        ' ',
        mode === 'production' ? t('modeProduction') : t('modeSandbox'),
      ),
    );
  }
  if (field.type === 'methods') {
    return METHODS.map((m) =>
      el(
        'label',
        {},
        el('input', {
          type: 'checkbox',
          name: 'enabledMethods',
          value: m,
          id: m === 'pix' ? id : null,
          checked: value.includes(m),
          ...aria,
        }),
        ' ',
        t(`method_${m}`),
      ),
    );
  }
  if (field.type === 'ecommerce') {
    const part = (key) =>
      el(
        'label',
        {},
        t(`f_${key}`),
        ' ',
        el('input', {
          id: key === 'storeId' ? id : `${id}-${key}`,
          'data-part': key,
          type: 'text',
          inputmode: 'numeric',
          size: 8,
          value: value ? value[key] : '',
          ...aria,
        }),
      );
    return [part('storeId'), part('checkout')];
  }
  if (field.type === 'json') {
    const text = value ? JSON.stringify(value, null, 2) : '';
    return [el('textarea', { id, class: 'code', rows: 4, spellcheck: 'false', ...aria }, text)];
  }
  const type = field.type === 'int' ? 'text' : field.type === 'url' ? 'url' : 'text';
  return [
    el('input', {
      id,
      type,
      inputmode: field.type === 'int' ? 'numeric' : null,
      value: value ?? '',
      ...aria,
    }),
  ];
}

/** One row of the form; `data-field` names the field, so the API's errors find it. */
export function fieldRow(field, settings) {
  const value = settings[field.name];
  const id = `set-${field.name}`;
  const ids = { help: `${id}-help`, current: `${id}-current`, error: `${id}-error` };
  const describedBy = `${ids.help} ${ids.current} ${ids.error}`;
  const saved = (settings.overridden ?? []).includes(field.name);
  const source = saved ? t('fromSaved') : t('fromDefault');
  const grouped = field.type === 'mode' || field.type === 'methods';
  const label = grouped
    ? el('span', { class: 'label', id: `${id}-label` }, t(`f_${field.name}`))
    : el('label', { for: id }, t(`f_${field.name}`));
  const controls = el(
    'div',
    { class: 'control', role: grouped ? 'group' : null, 'aria-labelledby': grouped ? `${id}-label` : null },
    control(field, value, id, describedBy),
  );
  if (saved && !field.secret) {
    controls.append(
      el('label', {}, el('input', { type: 'checkbox', 'data-reset': field.name }), ' ', t('useDefault')),
    );
  }
  return el(
    'div',
    { class: 'field', 'data-field': field.name },
    label,
    controls,
    el(
      'p',
      { class: 'current', id: ids.current },
      t('currentValue', { value: `${describe(field, value)} (${source})` }),
    ),
    el('p', { class: 'help', id: ids.help }, t(`h_${field.name}`)),
    field.type === 'mode'
      ? el(
          'p',
          { class: 'warning', id: 'production-warning', role: 'alert', hidden: value !== 'production' },
          t('productionWarning'),
        )
      : null,
    el('p', { class: 'field-error', id: ids.error }),
  );
}
