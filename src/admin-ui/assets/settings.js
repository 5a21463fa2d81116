// The Settings tab: the form, saving with the API's field errors, secret rotation and the credential check.
import { api, ApiError } from './api.js';
import { el, fill } from './dom.js';
import { t } from './i18n.js';
import { readChanges } from './settings-changes.js';
import { FIELDS, fieldRow, loadFields } from './settings-fields.js';
import { confirmDialog, problemText, showError, status } from './ui.js';

let settings = null;

/** Loads the settings and draws the tab. */
export async function showSettings(panel) {
  try {
    await loadFields();
    settings = await api('GET', '/settings');
  } catch (error) {
    showError(error);
    return;
  }
  render(panel);
}

function render(panel) {
  const form = el('form', { id: 'settings-form', novalidate: true, onsubmit: (e) => save(e, panel) });
  form.append(...FIELDS.filter((f) => !f.advanced).map((field) => fieldRow(field, settings)));
  form.append(
    el(
      'details',
      { id: 'advanced-settings', class: 'advanced' },
      el('summary', {}, t('advancedTitle')),
      el('p', { class: 'help' }, t('advancedHelp')),
      FIELDS.filter((f) => f.advanced).map((field) => fieldRow(field, settings)),
    ),
  );
  form.append(
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'submit', class: 'primary', id: 'save-settings' }, t('saveSettings')),
      el('p', { class: 'error', id: 'settings-error', role: 'alert' }),
    ),
  );
  form.addEventListener('change', (event) => {
    if (event.target.name === 'mode')
      document.getElementById('production-warning').hidden = event.target.value !== 'production';
  });
  fill(
    panel,
    el('h2', {}, t('settingsTitle')),
    form,
    el('h3', {}, t('checkTitle')),
    el('p', { class: 'help' }, t('checkHelp')),
    el(
      'div',
      { class: 'actions' },
      el('button', { type: 'button', id: 'check-credentials', onclick: () => check() }, t('check')),
    ),
    el('div', { id: 'check-result', 'aria-live': 'polite' }),
    el(
      'details',
      { class: 'advanced', id: 'security-settings' },
      el('summary', {}, t('rotateTitle')),
      el('p', { class: 'help' }, t('rotateHelp')),
      el(
        'div',
        { class: 'actions' },
        el('button', { type: 'button', id: 'rotate-secrets', onclick: () => rotate() }, t('rotate')),
      ),
      el('p', { id: 'rotate-result', role: 'status' }),
    ),
  );
}

function clearErrors(form) {
  for (const node of form.querySelectorAll('.field-error')) node.textContent = '';
  for (const node of form.querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
  document.getElementById('settings-error').textContent = '';
}

/**
 * Puts each of the API's field problems (`ecommerce.storeId` → the `ecommerce` row) beside its field, as a sentence
 * in the page's language naming the field and the limit; opens the advanced section when one is there.
 */
function showFieldErrors(form, problems) {
  let first = null;
  for (const problem of problems) {
    const row = form.querySelector(`[data-field="${CSS.escape(String(problem.field).split('.')[0])}"]`);
    if (!row) continue;
    const target = row.querySelector('.field-error');
    target.textContent = [target.textContent, problemText(problem)].filter(Boolean).join(' ');
    for (const input of row.querySelectorAll('input, textarea')) input.setAttribute('aria-invalid', 'true');
    const details = row.closest('details');
    if (details) details.open = true;
    first ??= row.querySelector('input, textarea');
  }
  first?.focus();
}

async function save(event, panel) {
  event.preventDefault();
  const form = event.currentTarget;
  clearErrors(form);
  const body = readChanges(form, settings);
  if (Object.keys(body).length === 0) {
    status(t('nothingChanged'));
    return;
  }
  if (body.mode === 'production' && settings.mode !== 'production') {
    const ok = await confirmDialog({
      title: t('productionConfirmTitle'),
      text: t('productionConfirmText'),
      ok: t('productionConfirm'),
    });
    if (!ok) return;
  }
  try {
    settings = await api('PUT', '/settings', body);
  } catch (error) {
    const problems = error instanceof ApiError && error.status === 400 ? (error.body.problems ?? []) : [];
    if (problems.length > 0) {
      showFieldErrors(form, problems);
      document.getElementById('settings-error').textContent = t('fixErrors');
      status(t('fixErrors'));
      return;
    }
    showError(error, document.getElementById('settings-error'));
    return;
  }
  render(panel);
  status(t('saved'));
  document.getElementById('save-settings').focus();
}

/** The answer of one checked operation in words: "sim", "não: a chave não tem essa permissão"... */
function checkAnswer(result) {
  const answers = {
    ok: 'checkYes',
    unauthorized: 'checkNoUnauthorized',
    missing_scope: 'checkNoScope',
    not_available: 'checkNotAvailable',
  };
  return t(answers[result] ?? 'checkNoError');
}

async function check() {
  const target = document.getElementById('check-result');
  fill(target, el('p', {}, t('loading')));
  try {
    const report = await api('POST', '/credentials/check');
    const items = report.operations.map((o) => {
      const label = t(`op_${o.operation}`) === `op_${o.operation}` ? o.operation : t(`op_${o.operation}`);
      const good = o.result === 'ok';
      return el(
        'li',
        { 'data-operation': o.operation, 'data-result': o.result },
        `${label}: `,
        el(
          'strong',
          { class: `badge ${good ? 'ok' : o.result === 'not_available' ? 'wait' : 'bad'}` },
          checkAnswer(o.result),
        ),
      );
    });
    fill(
      target,
      el(
        'p',
        { class: report.ok ? '' : 'error', id: 'check-summary' },
        report.ok ? t('checkOk') : t('checkProblems'),
      ),
      el('ul', { class: 'check-list', 'aria-label': t('checkTitle') }, items),
    );
  } catch (error) {
    fill(target);
    showError(error, target);
  }
}

async function rotate() {
  const target = document.getElementById('rotate-result');
  try {
    const result = await api('POST', '/settings/rotate-secrets');
    target.textContent = t('rotated', {
      key: result.currentKeyId ?? '—',
      rotated: result.rotated,
      remaining: result.remaining,
    });
  } catch (error) {
    showError(error, target);
  }
}
