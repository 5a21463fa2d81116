// The settings form: one row per field of the settings API, with its help, its current value and its errors.
import { el } from './dom.js';
import { api } from './api.js';
import { addTexts, t } from './i18n.js';

/**
 * Every field of `PUT /settings`, in the order shown, as the module declares its settings (`GET /settings/fields`):
 * name, how it is edited, whether it is secret, its label and help in both languages, and `advanced` for
 * addresses, ids and protocol, kept in a collapsed section (set once, usually by whoever installed the store).
 */
export let FIELDS = [];

/** Loads the field list once, and its labels and help into the page's texts. */
export async function loadFields() {
  if (FIELDS.length > 0) return;
  const fields = await api('GET', '/settings/fields');
  for (const field of fields) {
    addTexts('en', { [`f_${field.name}`]: field.label.en, [`h_${field.name}`]: field.help.en });
    addTexts('pt-BR', { [`f_${field.name}`]: field.label.pt, [`h_${field.name}`]: field.help.pt });
  }
  FIELDS = fields;
}

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
    return (field.options ?? []).map((m) =>
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
