// Page-wide feedback: the status line, error texts, the confirmation dialog.
import { ApiError } from './api.js';
import { brl, day } from './dom.js';
import { currentLang, t } from './i18n.js';

let onUnauthorized = () => undefined;

/** What to do when the API answers 401 (the key was changed or the session ended): back to sign-in. */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/** Shows `text` on the page's status line (read out by screen readers). */
export function status(text) {
  document.getElementById('status').textContent = text ?? '';
}

/** A text of the catalog when it has `key`, else `null`. */
function known(key, vars) {
  const text = t(key, vars);
  return text === key ? null : text;
}

/** The label people see for an API field (`dueDays`, `ecommerce.storeId`, `amountCents`). */
export function fieldLabel(field) {
  const last = String(field).split('.').pop();
  return (
    known(`field_${field}`) ??
    known(`f_${field}`) ??
    known(`f_${last}`) ??
    known(`f_${field.split('.')[0]}`) ??
    field
  );
}

/** A field problem of a 400 (`{ field, code, limit }`) as a sentence naming the field's label and the limit. */
export function problemText(problem) {
  const lang = currentLang();
  let limit = problem.limit;
  if (problem.field === 'amountCents' && typeof limit === 'number') limit = brl(limit, lang);
  else if (problem.code === 'too_early') limit = day(limit, lang);
  return (
    known(`err_${problem.code}`, { field: fieldLabel(problem.field), limit: limit ?? '' }) ??
    t('err_invalid', { field: fieldLabel(problem.field) })
  );
}

/** The reason of a service failure (`gateway_<kind>`, or a tracking error's kind) in words. */
export function gatewayReason(kind) {
  return known(`gw_${kind}`) ?? t('gw_unknown');
}

/**
 * The text of an error for people, from the API's stable `code` (the English `message` is for API users): field
 * problems name the field's label and the limit, refused actions name the invoice's status.
 */
export function errorText(error) {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  if (error.status === 0) return t('networkError');
  if (error.status === 401) return t('sessionExpired');
  const body = error.body ?? {};
  const code = typeof body.code === 'string' ? body.code : '';
  if (error.status === 400 && Array.isArray(body.problems) && body.problems.length > 0)
    return body.problems.map(problemText).join(' ');
  if (error.status === 400 && body.field) return problemText(body);
  if (code === 'action_not_allowed') {
    const action = t(`action_${body.action}`);
    const reason = known(`err_action_${body.reason}`, { action });
    if (reason) return reason;
    const status = known(`status_${body.invoiceStatusKey}`) ?? String(body.invoiceStatus ?? '—');
    return t('err_action', { action, status });
  }
  if (code.startsWith('gateway_')) return t('err_gateway', { reason: gatewayReason(code.slice(8)) });
  return known(`err_${code}`) ?? t('err_unknown', { status: error.status });
}

/** Shows an error in `target` (an element) or on the status line; a 401 signs out. */
export function showError(error, target) {
  if (error instanceof ApiError && error.status === 401) {
    onUnauthorized();
    return;
  }
  if (target) target.textContent = errorText(error);
  else status(errorText(error));
}

/**
 * Asks for confirmation in a modal dialog (keyboard: Tab between the buttons, Enter, Escape cancels); resolves
 * `true` when confirmed. Focus returns to where it was.
 */
export function confirmDialog({ title, text, ok }) {
  const dialog = document.getElementById('confirm');
  const previous = document.activeElement;
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = ok ?? t('confirm');
  document.getElementById('confirm-cancel').textContent = t('cancel');
  dialog.returnValue = 'cancel';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if (previous instanceof HTMLElement) previous.focus();
        resolve(dialog.returnValue === 'ok');
      },
      { once: true },
    );
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}
